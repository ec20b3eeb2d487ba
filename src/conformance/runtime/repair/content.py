"""Empty content: empty blocks are removed, then messages left with nothing are removed.

Empty means: a text block whose text is empty or whitespace only and that carries no signature (a
Gemini signature may arrive on an empty text part and must go back on it); a thinking block with no
text and no signature; redacted thinking with no data; an image with neither data nor url. A tool
result is never removed for being empty (its call would lose its answer), and an assistant message
may consist of tool calls alone. Removing empty things loses nothing, so these actions do not warn.

An assistant message left with thinking alone (its answer was empty, or never came) is removed as
well, with a warning: reasoning must lead to an item (the Responses API rejects a reasoning item
without one, and no provider takes a turn that answers nothing).
"""

from __future__ import annotations

from typing import Any

from conformance.model import (
    AssistantMessage,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
)
from conformance.runtime.repair.base import Action, Loss, RepairContext

THINKING = (ThinkingBlock, RedactedThinkingBlock)


def is_empty_block(block: Any) -> bool:
    if isinstance(block, TextBlock):
        return not block.text.strip() and block.signature is None
    if isinstance(block, ThinkingBlock):
        return not block.thinking and block.signature is None
    if isinstance(block, RedactedThinkingBlock):
        return not block.data
    if isinstance(block, ImageBlock):
        return not block.data and not block.url
    return False


def drop_empty(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    out: list[Message] = []
    actions: list[Action] = []
    for i, message in enumerate(messages):
        kept = [b for b in message.content if not is_empty_block(b)]
        if len(kept) != len(message.content):
            n = len(message.content) - len(kept)
            actions.append(Action("drop_empty_blocks", i, f"removed {n} empty block(s)"))
            message = message.model_copy(update={"content": kept})
        if not kept and not isinstance(message, ToolResultMessage):
            actions.append(Action("drop_empty_message", i, f"{message.role} message with no content removed"))
            continue
        if isinstance(message, AssistantMessage) and all(isinstance(b, THINKING) for b in kept):
            detail = f"assistant message with {len(kept)} thinking block(s) and no answer removed"
            actions.append(Loss("drop_thinking_only", i, detail))
            continue
        out.append(message)
    return out, actions
