"""The engine rules that apply to a path before it becomes a provider request.

Coalescing merges two adjacent messages only when both are user, or both assistant, and both are
text only (every block `text`). A message with a tool call, thinking or an image, and every tool
result, stays as it is: merging would hide a call or move a result away from it. Nothing is
merged across a system message.
"""

from __future__ import annotations

from typing import Any

from conformance.store.errors import InvalidMessageError
from conformance.store.model import text_only, tool_call_ids

_MERGEABLE = frozenset({"user", "assistant"})


def coalescible(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.get("role") == b.get("role") and a.get("role") in _MERGEABLE and text_only(a) and text_only(b)


def coalesce(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Adjacent same-role, text-only user/assistant messages merged; the blocks are concatenated
    (each message's blocks kept as blocks, so no text is joined or altered)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if out and coalescible(out[-1], message):
            previous = out[-1]
            out[-1] = {"role": previous["role"], "content": [*previous["content"], *message["content"]]}
        else:
            out.append(message)
    return out


def check_tool_results(messages: list[dict[str, Any]], where: str = "path") -> None:
    """Every tool result answers a call of the nearest assistant message before it."""
    calls: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            calls = set(tool_call_ids(message))
        elif role == "tool_result":
            if message.get("tool_call_id") not in calls:
                raise InvalidMessageError(
                    "uncorrelated_tool_result",
                    f"messages[{i}].tool_call_id {message.get('tool_call_id')!r} answers no earlier call",
                    where=where,
                )
        else:
            calls = set()
