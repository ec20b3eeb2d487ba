"""OpenAI Responses request rules (reference §2.2, §2.5, hazard checklist §10).

- ``model`` and ``input`` are required;
- message items have a known role (user, system, developer, assistant);
- a ``function_call`` has a ``call_id`` and string ``arguments``, and is answered by a
  ``function_call_output`` with the same ``call_id`` before the next message and before the end of
  the input (a call left unanswered at the end breaks ``pending_call``: "No tool output found for
  function call"); a ``function_call_output`` answers an earlier call — unless
  ``previous_response_id`` is set, where the call may be in the stored response;
- a ``reasoning`` item is followed by the item it led to (a function call, a built-in tool item
  or an assistant message): "Item 'rs_…' of type 'reasoning' was provided without its required following item";
- with ``store: false`` a reasoning item carries its ``encrypted_content`` (a bare id 404s:
  "Items are not persisted when store is set to false");
- tools are flat (``name`` on the tool, no nested ``function``);
- ``max_output_tokens`` is at least the profile's ``min_max_tokens`` (OpenAI: 16);
- ``temperature`` is within 0..2; an ``input_file``'s ``file_data`` is a base64 data URL.

Which of these a provider enforces, and on what evidence, is its rule book's (`rules.py`).
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.openai_responses.tables import BUILTIN_TOOL_ITEMS
from conformance.codecs.validation import PENDING_CALL, Violation, items, obj, temperature_range

ROLES = frozenset({"user", "system", "developer", "assistant"})
_FOLLOWERS = frozenset({"function_call", "custom_tool_call", "message", "reasoning"}) | BUILTIN_TOOL_ITEMS


def _calls(input_items: list[Any], previous: bool) -> list[Violation]:
    out: list[Violation] = []
    calls: dict[str, str] = {}
    """Call id → path of the call, for calls not answered yet."""
    seen: set[str] = set()
    for i, raw in enumerate(input_items):
        item, where = obj(raw), f"input[{i}]"
        kind = item.get("type", "message")
        if kind == "function_call":
            call_id = item.get("call_id")
            if not isinstance(call_id, str) or not call_id:
                out.append(Violation(f"{where}.call_id", "call_id", "a function call needs a call_id"))
                continue
            if not isinstance(item.get("arguments"), str):
                out.append(Violation(f"{where}.arguments", "arguments_string", "arguments must be a string"))
            calls[call_id] = where
            seen.add(call_id)
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if call_id not in seen and not previous:
                out.append(Violation(where, "orphan_call_output", f"no function call with call_id {call_id!r}"))
            calls.pop(str(call_id), None)
        elif kind == "message" and calls:
            for call_id, path in calls.items():
                out.append(
                    Violation(path, "call_unanswered", f"function call {call_id!r} has no output before {where}")
                )
            calls = {}
    for call_id, path in calls.items():
        out.append(Violation(path, PENDING_CALL, f"function call {call_id!r} has no output: the input ends before it"))
    return out


def _file_data(input_items: list[Any]) -> list[Violation]:
    out: list[Violation] = []
    for i, raw in enumerate(input_items):
        item = obj(raw)
        for key in ("content", "output"):
            for j, part in enumerate(items(item.get(key))):
                data = obj(part).get("file_data")
                if obj(part).get("type") == "input_file" and isinstance(data, str) and not data.startswith("data:"):
                    where = f"input[{i}].{key}[{j}].file_data"
                    out.append(Violation(where, "file_data_url", "file_data must be a base64 data URL"))
    return out


def validate_request(body: dict[str, Any], profile: ProviderProfile) -> list[Violation]:
    out: list[Violation] = []
    if not isinstance(body.get("model"), str) or not body["model"]:
        out.append(Violation("model", "model_required", "`model` is required (a non-empty string)"))
    raw_input = body.get("input")
    if not (isinstance(raw_input, str) and raw_input) and not (isinstance(raw_input, list) and raw_input):
        out.append(Violation("input", "input_required", "`input` is required (a string or a non-empty list of items)"))
    out += temperature_range(body) + _file_data(items(raw_input))
    input_items = items(raw_input)
    stateless = body.get("store") is False
    for i, raw in enumerate(input_items):
        item, where = obj(raw), f"input[{i}]"
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") not in ROLES:
            out.append(Violation(f"{where}.role", "role", f"unknown role {item.get('role')!r}"))
        if kind != "reasoning":
            continue
        following = obj(input_items[i + 1]) if i + 1 < len(input_items) else {}
        follower = following.get("type", "message")
        if (
            not following
            or not isinstance(follower, str)
            or follower not in _FOLLOWERS
            or (follower == "message" and following.get("role") != "assistant")
        ):
            out.append(
                Violation(where, "reasoning_following_item", "a reasoning item needs the item it led to after it")
            )
        if stateless and not item.get("encrypted_content"):
            out.append(
                Violation(
                    where, "reasoning_encrypted_content", "with store: false a reasoning item needs encrypted_content"
                )
            )
    out += _calls(input_items, body.get("previous_response_id") is not None)
    for n, raw_tool in enumerate(items(body.get("tools"))):
        tool = obj(raw_tool)
        if tool.get("type") == "function" and (not isinstance(tool.get("name"), str) or "function" in tool):
            out.append(Violation(f"tools[{n}]", "flat_tool", "a function tool has its name on the tool, not nested"))
    limit = body.get(profile.max_tokens_field)
    if isinstance(limit, int) and limit < profile.min_max_tokens:
        out.append(Violation(profile.max_tokens_field, "min_max_tokens", f"must be at least {profile.min_max_tokens}"))
    return out
