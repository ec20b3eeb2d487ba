"""Thinking rules: what may be sent back, and where it goes in a message.

A message's origin is its ``provider`` and ``model`` (a message without them is taken to come from
the target). Thinking is sent back as it is only when the origin is the target provider *and*
model and the target accepts reasoning in history
(``send_reasoning_back``, overridable per model):

- signed thinking: only to the same provider and model (a signature is only valid there);
- unsigned thinking: kept when its origin is the target or unknown, unless the target requires
  signatures (``thinking_requires_signature``);
- anything else is dropped, or turned into plain text with ``RepairOptions.foreign_thinking="text"``;
- redacted thinking is opaque: it never crosses providers or models and is never turned into text;
- signatures on text and tool-call blocks (Gemini ``thoughtSignature``) are removed when the
  origin is not the target.
"""

from __future__ import annotations

from conformance.model import (
    AssistantMessage,
    Message,
    RedactedThinkingBlock,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from conformance.runtime.repair.base import Action, Loss, RepairContext


def same_origin(message: AssistantMessage, ctx: RepairContext) -> bool:
    """Same provider and model. A message with no origin is the caller's to vouch for: it counts as
    the target's (a model left out counts as the target model)."""
    if message.provider is None:
        return True
    return message.provider == ctx.profile.name and message.model in (None, ctx.model)


def _accepts_reasoning(ctx: RepairContext) -> bool:
    override = ctx.profile.model_info(ctx.model).send_reasoning_back
    return ctx.profile.send_reasoning_back if override is None else override


def _refusal(block: ThinkingBlock, message: AssistantMessage, ctx: RepairContext) -> str | None:
    """Why this thinking block may not be sent back as it is; None when it may."""
    same = same_origin(message, ctx)
    if not _accepts_reasoning(ctx):
        return f"{ctx.profile.name} does not accept reasoning in history"
    if block.signature is not None:
        return None if same else f"signed by {message.provider}/{message.model}, not the target"
    if ctx.profile.thinking_requires_signature:
        return f"{ctx.profile.name} requires signed thinking"
    if message.provider is not None and not same:
        return f"thinking from {message.provider}/{message.model}"
    return None


def foreign_thinking(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Drop (or turn into text) thinking that the target may not receive; strip foreign signatures."""
    out: list[Message] = []
    actions: list[Action] = []
    as_text = ctx.options.foreign_thinking == "text"
    for i, message in enumerate(messages):
        if not isinstance(message, AssistantMessage):
            out.append(message)
            continue
        same = same_origin(message, ctx)
        content: list[ThinkingBlock | RedactedThinkingBlock | TextBlock | ToolCallBlock | object] = []
        changed = False
        for block in message.content:
            if isinstance(block, ThinkingBlock):
                why = _refusal(block, message, ctx)
                if why is None:
                    content.append(block)
                elif as_text:
                    content.append(TextBlock(text=block.thinking))
                    actions.append(Action("foreign_thinking", i, f"thinking turned into text: {why}"))
                else:
                    actions.append(Loss("foreign_thinking", i, f"thinking dropped: {why}"))
                changed = changed or why is not None
            elif isinstance(block, RedactedThinkingBlock):
                if same and _accepts_reasoning(ctx):
                    content.append(block)
                else:
                    actions.append(
                        Loss(
                            "foreign_thinking",
                            i,
                            "redacted thinking dropped: it never crosses providers",
                        )
                    )
                    changed = True
            elif isinstance(block, TextBlock | ToolCallBlock) and block.signature is not None and not same:
                content.append(block.model_copy(update={"signature": None}))
                actions.append(Action("foreign_thinking", i, f"signature removed from a {block.type} block"))
                changed = True
            else:
                content.append(block)
        out.append(message.model_copy(update={"content": content}) if changed else message)
    return out, actions


def thinking_first(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Within an assistant message, move thinking blocks before the rest (relative order kept).

    A message with server-tool blocks keeps its order (the provider wants its items back as it sent
    them, reasoning interleaved with them), except thinking at its very end: reasoning always leads
    to a later item, so trailing thinking is damage and moves to the front like any other."""
    out: list[Message] = []
    actions: list[Action] = []
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            content = list(message.content)
            if any(isinstance(b, ServerToolBlock) for b in content):
                end = len(content)
                while end > 0 and isinstance(content[end - 1], ThinkingBlock | RedactedThinkingBlock):
                    end -= 1
                reordered = content[end:] + content[:end] if end else content
            else:
                thinking = [b for b in content if isinstance(b, ThinkingBlock | RedactedThinkingBlock)]
                reordered = thinking + [b for b in content if not isinstance(b, ThinkingBlock | RedactedThinkingBlock)]
            if reordered != content:
                actions.append(Action("thinking_first", i, "thinking blocks moved before text and tool calls"))
                message = message.model_copy(update={"content": reordered})
        out.append(message)
    return out, actions
