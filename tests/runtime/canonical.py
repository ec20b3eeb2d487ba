"""Canonical-level rules a repaired transcript must satisfy, whatever the codec does with it."""

from __future__ import annotations

import re

from conformance.capabilities import ProviderProfile
from conformance.model import (
    AssistantMessage,
    Message,
    RedactedThinkingBlock,
    ServerToolBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from conformance.runtime.repair.content import is_empty_block


def canonical_violations(messages: list[Message], profile: ProviderProfile, model: str) -> list[str]:
    out: list[str] = []
    body = [(i, m) for i, m in enumerate(messages) if not isinstance(m, SystemMessage)]
    if body and not isinstance(body[0][1], UserMessage):
        out.append(f"{body[0][0]}: first turn is not a user turn")
    seen_ids: set[str] = set()
    for n, (i, message) in enumerate(body):
        if any(is_empty_block(b) for b in message.content):
            out.append(f"{i}: empty block")
        if not message.content and not isinstance(message, ToolResultMessage):
            out.append(f"{i}: empty message")
        prev = body[n - 1][1] if n else None
        alternating = profile.alternating_roles or profile.strict_alternation
        if (
            alternating
            and prev is not None
            and type(prev) is type(message)
            and not isinstance(message, ToolResultMessage)
        ):
            out.append(f"{i}: two {message.role} messages in a row")
        if isinstance(message, AssistantMessage):
            out += _assistant(i, message, messages, profile, model, seen_ids)
        if isinstance(message, ToolResultMessage):
            j = i - 1
            while j >= 0 and isinstance(messages[j], ToolResultMessage):
                j -= 1
            owner = messages[j] if j >= 0 else None
            ids = (
                [b.id for b in owner.content if isinstance(b, ToolCallBlock)]
                if isinstance(owner, AssistantMessage)
                else []
            )
            if message.tool_call_id not in ids:
                out.append(f"{i}: result {message.tool_call_id!r} does not follow its call")
    return out


def _assistant(
    i: int, message: AssistantMessage, messages: list[Message], profile: ProviderProfile, model: str, seen: set[str]
) -> list[str]:
    out: list[str] = []
    kinds = [isinstance(b, ThinkingBlock | RedactedThinkingBlock) for b in message.content]
    # a message holding server-tool blocks keeps the order it was received in (normalized-form.md),
    # but never ends on thinking: reasoning leads to a later item
    in_received_order = any(isinstance(b, ServerToolBlock) for b in message.content)
    if in_received_order and kinds and kinds[-1] and not all(kinds):
        out.append(f"{i}: thinking at the end of a message kept in received order")
    elif kinds != sorted(kinds, reverse=True) and not in_received_order:
        out.append(f"{i}: thinking after other blocks")
    same = message.provider is None or (message.provider == profile.name and message.model in (None, model))
    for block in message.content:
        if isinstance(block, RedactedThinkingBlock | ThinkingBlock | TextBlock | ToolCallBlock):
            signed = block.signature if not isinstance(block, RedactedThinkingBlock) else block.data
            if signed and not same:
                out.append(f"{i}: signed {block.type} from another provider or model")
    if message.stop_reason in ("error", "aborted") or message.error is not None:
        out.append(f"{i}: failed turn kept")
    calls = [b.id for b in message.content if isinstance(b, ToolCallBlock)]
    for call_id in calls:
        if call_id in seen:
            out.append(f"{i}: reused id {call_id!r}")
        seen.add(call_id)
        if profile.tool_id_pattern and not re.fullmatch(profile.tool_id_pattern, call_id):
            out.append(f"{i}: id {call_id!r} does not match {profile.tool_id_pattern!r}")
    j = i + 1
    answered: list[str] = []
    while j < len(messages) and isinstance(messages[j], ToolResultMessage):
        answered.append(messages[j].tool_call_id)  # type: ignore[union-attr]
        j += 1
    if j < len(messages) and sorted(answered) != sorted(calls):
        out.append(f"{i}: calls {calls} answered by {answered}")
    return out
