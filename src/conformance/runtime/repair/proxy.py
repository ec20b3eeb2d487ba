"""Gemini-proxy compatibility mode (``RepairOptions(gemini_proxy=True)``), off by default.

Some proxies in front of Gemini pass text only: structured history (function calls and
responses, thought signatures) is rejected or mangled. This mode flattens the transcript to text:

- system and assistant messages become plain text: one text block without a signature (blocks
  joined by a blank line), as the proxies take a string for these roles; a tool call is written as
  ``[tool_call NAME ID] {"arg": …}`` so the model still sees what it did;
- each tool result becomes a user text turn headed ``[tool_result NAME ID]`` (``… error]`` when it
  was an error);
- user messages are kept as they are, images included: the proxies pass a user's image parts on.

Trade-off: everything that is not text is lost — thinking and redacted thinking, signatures,
images in assistant messages and tool results — and the model no longer sees real tool calls, so
it may imitate the bracketed form instead of calling tools. Every loss is an action with a warning.
"""

from __future__ import annotations

import json

from conformance.model import (
    AssistantMessage,
    ImageBlock,
    Message,
    SystemMessage,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from conformance.runtime.repair.base import Action, Loss, RepairContext


def _flat(message: AssistantMessage | SystemMessage, i: int, actions: list[Action]) -> Message:
    plain = all(isinstance(b, TextBlock) and b.signature is None for b in message.content)
    if plain and len(message.content) <= 1:
        return message
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolCallBlock):
            args = json.dumps(block.arguments, ensure_ascii=False, sort_keys=True)
            parts.append(f"[tool_call {block.name} {block.id}] {args}")
        else:
            actions.append(Loss("gemini_proxy", i, f"{block.type} block dropped (text-only mode)"))
    actions.append(Action("gemini_proxy", i, f"{message.role} message flattened to text"))
    return message.model_copy(update={"content": [TextBlock(text="\n\n".join(p for p in parts if p))]})


def gemini_proxy(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    if not ctx.options.gemini_proxy:
        return messages, []
    out: list[Message] = []
    actions: list[Action] = []
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage | SystemMessage):
            out.append(_flat(message, i, actions))
        elif isinstance(message, ToolResultMessage):
            flag = " error" if message.is_error else ""
            header = f"[tool_result {message.tool_name or ''} {message.tool_call_id}{flag}]"
            text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
            images = sum(isinstance(b, ImageBlock) for b in message.content)
            if images:
                actions.append(Loss("gemini_proxy", i, f"{images} image(s) of a tool result dropped"))
            actions.append(Action("gemini_proxy", i, "tool result turned into a user text turn"))
            out.append(UserMessage(content=[TextBlock(text=f"{header}\n{text}")]))
        else:
            out.append(message)
    return out, actions
