"""Tool-call id rules: proxy suffixes, reused ids, and the target provider's id pattern.

Ids are rewritten deterministically (a sanitized form when it fits, else a hash of the original
id), so the same transcript always gets the same ids, and the same mapping is applied to a call and
to its results.
"""

from __future__ import annotations

import re

from conformance.codecs.tool_ids import id_map, ordered_ids
from conformance.model import AssistantMessage, Message, ToolCallBlock, ToolResultMessage
from conformance.runtime.repair.base import Action, Loss, RepairContext, call_owners

THOUGHT_SUFFIX = "__thought__"


def _with_call_ids(message: AssistantMessage, ids: list[str]) -> AssistantMessage:
    calls = iter(ids)
    content = [b.model_copy(update={"id": next(calls)}) if isinstance(b, ToolCallBlock) else b for b in message.content]
    return message.model_copy(update={"content": content})


def strip_thought_suffix(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Remove the ``__thought__…`` suffix that some Gemini proxies append to tool-call ids."""

    def strip(value: str) -> str:
        head, sep, _ = value.partition(THOUGHT_SUFFIX)
        return head if sep and head else value

    out: list[Message] = []
    actions: list[Action] = []
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            ids = [b.id for b in message.content if isinstance(b, ToolCallBlock)]
            new = [strip(x) for x in ids]
            if new != ids:
                for old, fixed in zip(ids, new, strict=True):
                    if old != fixed:
                        actions.append(Action("strip_thought_suffix", i, f"tool call id {old!r} → {fixed!r}"))
                message = _with_call_ids(message, new)
        elif isinstance(message, ToolResultMessage) and strip(message.tool_call_id) != message.tool_call_id:
            fixed = strip(message.tool_call_id)
            actions.append(Action("strip_thought_suffix", i, f"tool result id {message.tool_call_id!r} → {fixed!r}"))
            message = message.model_copy(update={"tool_call_id": fixed})
        out.append(message)
    return out, actions


def _all_ids(messages: list[Message]) -> set[str]:
    ids: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            ids.update(b.id for b in message.content if isinstance(b, ToolCallBlock))
        elif isinstance(message, ToolResultMessage):
            ids.add(message.tool_call_id)
    return ids


def unique_call_ids(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Give a reused tool-call id (an earlier call already has it) a fresh ``<id>_<n>`` id.

    The results that belong to the renamed call (see `call_owners`) are renamed with it. When one
    message holds the same id twice, its results are matched to the calls in order; surplus results
    stay with the first call (the duplicate-result rule then keeps one).
    """
    owners = call_owners(messages)
    used = _all_ids(messages)
    seen: set[str] = set()
    occurrences: dict[int, dict[str, list[str]]] = {}
    taken: dict[tuple[int, str], int] = {}
    out: list[Message] = []
    actions: list[Action] = []
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            per_id: dict[str, list[str]] = {}
            new_ids: list[str] = []
            for call in (b for b in message.content if isinstance(b, ToolCallBlock)):
                new_id = call.id
                if call.id in seen:
                    n = 2
                    while f"{call.id}_{n}" in used:
                        n += 1
                    new_id = f"{call.id}_{n}"
                    used.add(new_id)
                    actions.append(Action("unique_call_ids", i, f"reused tool call id {call.id!r} → {new_id!r}"))
                seen.add(new_id)
                per_id.setdefault(call.id, []).append(new_id)
                new_ids.append(new_id)
            occurrences[i] = per_id
            if any(per_id[k] != [k] * len(per_id[k]) for k in per_id):
                message = _with_call_ids(message, new_ids)
        elif isinstance(message, ToolResultMessage):
            owner = owners.get(i)
            if owner is not None:
                key = (owner, message.tool_call_id)
                k = taken.get(key, 0)
                taken[key] = k + 1
                slots = occurrences[owner][message.tool_call_id]
                new_id = slots[k] if k < len(slots) else slots[0]
                if new_id != message.tool_call_id:
                    actions.append(
                        Action("unique_call_ids", i, f"tool result id {message.tool_call_id!r} → {new_id!r}")
                    )
                    message = message.model_copy(update={"tool_call_id": new_id})
        out.append(message)
    return out, actions


def rewrite_tool_ids(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Rewrite ids that do not fully match ``profile.tool_id_pattern`` (calls and results alike)."""
    pattern = ctx.profile.tool_id_pattern
    if pattern is None:
        return messages, []
    mapping = id_map(messages, pattern, ctx.profile.tool_id_length)
    actions: list[Action] = [
        Loss("rewrite_tool_ids", -1, f"no id matching {pattern!r} found for {original!r}; kept")
        for original in ordered_ids(messages)
        if original not in mapping and not re.fullmatch(pattern, original)
    ]
    out: list[Message] = []
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            ids = [b.id for b in message.content if isinstance(b, ToolCallBlock)]
            if any(x in mapping for x in ids):
                for x in ids:
                    if x in mapping:
                        actions.append(Action("rewrite_tool_ids", i, f"tool call id {x!r} → {mapping[x]!r}"))
                message = _with_call_ids(message, [mapping.get(x, x) for x in ids])
        elif isinstance(message, ToolResultMessage) and message.tool_call_id in mapping:
            new_id = mapping[message.tool_call_id]
            actions.append(Action("rewrite_tool_ids", i, f"tool result id {message.tool_call_id!r} → {new_id!r}"))
            message = message.model_copy(update={"tool_call_id": new_id})
        out.append(message)
    return out, actions
