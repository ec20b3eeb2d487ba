"""Server-tool blocks: work a provider's own tools did, sent back only where it was made.

A `server_tool` block holds a wire item of its `dialect` (a Responses `web_search_call`, an
Anthropic `web_search_tool_result`). Like a signature, it is valid only for the provider and model
that made it: it is kept when the target speaks its dialect and the message's origin is the
target (see `thinking.same_origin`), and dropped otherwise, with a warning; what the tool found
still reaches the target through the text that follows it. In a user turn (the caller's answer,
such as an `mcp_approval_response`) only the dialect is checked.
"""

from __future__ import annotations

from typing import Any

from conformance.model import AssistantMessage, Message, ServerToolBlock, UserMessage
from conformance.runtime.repair.base import Action, Loss, RepairContext
from conformance.runtime.repair.thinking import same_origin


def has_server_tools(message: Message) -> bool:
    return isinstance(message, AssistantMessage | UserMessage) and any(
        isinstance(b, ServerToolBlock) for b in message.content
    )


def _refusal(block: ServerToolBlock, message: AssistantMessage | UserMessage, ctx: RepairContext) -> str | None:
    """Why this block may not be sent to the target; None when it may. A user turn's block (the
    caller's answer) has no origin to check, only its dialect."""
    if block.dialect != ctx.profile.dialect:
        return f"{block.dialect} items cannot be replayed on the {ctx.profile.dialect} dialect"
    if isinstance(message, AssistantMessage) and not same_origin(message, ctx):
        return f"made by {message.provider}/{message.model}, not the target"
    return None


def foreign_server_tools(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Drop the server-tool blocks the target cannot take back."""
    out: list[Message] = []
    actions: list[Action] = []
    for i, message in enumerate(messages):
        if not isinstance(message, AssistantMessage | UserMessage) or not has_server_tools(message):
            out.append(message)
            continue
        kept: list[Any] = []
        for block in message.content:
            why = _refusal(block, message, ctx) if isinstance(block, ServerToolBlock) else None
            if why is None:
                kept.append(block)
            elif isinstance(block, ServerToolBlock):
                actions.append(Loss("foreign_server_tool", i, f"{block.name} dropped: {why}"))
        out.append(message.model_copy(update={"content": kept}) if len(kept) != len(message.content) else message)
    return out, actions
