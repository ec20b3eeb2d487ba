"""OpenAI Chat Completions request rules (reference §1.2, §6.6, hazard checklist §10).

- ``model`` and ``messages`` are required;
- roles: developer, system, user, assistant, tool (and the deprecated function); a system or
  developer message is ``system_message`` (some models have no system role);
- every content part has a ``type``;
- an assistant message has ``content`` or ``tool_calls``; one with ``tool_calls`` carries its
  ``reasoning_content`` back (``reasoning_content_missing``), one without them may not need it
  (``reasoning_content_sent``);
- ``temperature`` is within 0..2;
- each assistant ``tool_calls`` entry is answered by a ``tool`` message with the same
  ``tool_call_id`` before any other message, and before the end of the request (calls left
  unanswered at the end: ``pending_call``);
- a ``tool`` message answers a call of the assistant message right before its run of tool messages;
- tool-call ids fully match ``profile.tool_id_pattern`` when the profile has one (Mistral: 9 alnum);
- ``function.arguments`` is a string (JSON text).

Which of these a provider enforces, and on what evidence, is its rule book's (`rules.py`).
"""

from __future__ import annotations

import re
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.validation import (
    PENDING_CALL,
    Violation,
    items,
    obj,
    require_model_and_list,
    temperature_range,
)

ROLES = frozenset({"developer", "system", "user", "assistant", "tool", "function"})


def _message_shape(message: dict[str, Any], role: str, where: str) -> list[Violation]:
    """The rules about one message alone: its role, its content parts, its reasoning."""
    out: list[Violation] = []
    if role in ("system", "developer"):
        out.append(Violation(f"{where}.role", "system_message", f"a {role} message"))
    for j, part in enumerate(items(message.get("content"))):
        if isinstance(part, dict) and "type" not in part:
            out.append(Violation(f"{where}.content[{j}]", "content_part_type", "a content part needs its type"))
    if role != "assistant":
        return out
    calls = items(message.get("tool_calls"))
    if calls and "reasoning_content" not in message:
        out.append(Violation(where, "reasoning_content_missing", "tool calls without their reasoning_content"))
    elif not calls and "reasoning_content" in message:
        out.append(Violation(f"{where}.reasoning_content", "reasoning_content_sent", "reasoning sent back"))
    return out


def validate_request(body: dict[str, Any], profile: ProviderProfile) -> list[Violation]:
    out = require_model_and_list(body, "messages") + temperature_range(body)
    pattern = profile.tool_id_pattern
    pending: dict[str, str] = {}
    """Call id → path of the call, for the assistant message whose results are being read."""
    answered: set[str] = set()
    for i, raw in enumerate(items(body.get("messages"))):
        where = f"messages[{i}]"
        message = obj(raw)
        role = message.get("role")
        if role not in ROLES:
            out.append(Violation(f"{where}.role", "role", f"unknown role {role!r}"))
            continue
        out += _message_shape(message, role, where)
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                out.append(Violation(where, "orphan_tool_message", f"no preceding tool call with id {call_id!r}"))
            answered.add(str(call_id))
            continue
        for call_id, path in pending.items():
            if call_id not in answered:
                out.append(
                    Violation(path, "tool_call_unanswered", f"tool call {call_id!r} has no tool message after it")
                )
        pending, answered = {}, set()
        if role != "assistant":
            continue
        calls = items(message.get("tool_calls"))
        if message.get("content") is None and not calls:
            out.append(Violation(where, "assistant_content", "an assistant message needs content or tool_calls"))
        for j, raw_call in enumerate(calls):
            call = obj(raw_call)
            call_where = f"{where}.tool_calls[{j}]"
            call_id = call.get("id")
            if not isinstance(call_id, str) or not call_id:
                out.append(Violation(f"{call_where}.id", "tool_call_id", "a tool call needs an id"))
                continue
            if pattern is not None and not re.fullmatch(pattern, call_id):
                out.append(
                    Violation(f"{call_where}.id", "tool_call_id_pattern", f"{call_id!r} does not match {pattern!r}")
                )
            if not isinstance(obj(call.get("function")).get("arguments"), str):
                out.append(
                    Violation(f"{call_where}.function.arguments", "arguments_string", "arguments must be a string")
                )
            pending[call_id] = call_where
    for call_id, path in pending.items():
        if call_id not in answered:
            out.append(
                Violation(path, PENDING_CALL, f"tool call {call_id!r} has no tool message: the request ends before it")
            )
    return out
