"""Ollama /api/chat request rules (reference §5.2).

- ``model`` and ``messages`` are required; roles are system, user, assistant and tool;
- ``content`` is a string; ``images`` a list of base64 strings;
- a ``tool`` message follows an assistant message with ``tool_calls`` (or another tool message of
  that run), and its ``tool_name`` / ``tool_call_id``, when given, name one of those calls.

Which of these Ollama enforces, and on what evidence, is its rule book's (`rules.py`).
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.validation import Violation, items, obj, require_model_and_list

ROLES = frozenset({"system", "user", "assistant", "tool"})


def validate_request(body: dict[str, Any], profile: ProviderProfile) -> list[Violation]:
    out = require_model_and_list(body, "messages")
    calls: list[dict[str, Any]] | None = None
    """Function objects of the assistant message the current run of tool messages answers."""
    for i, raw in enumerate(items(body.get("messages"))):
        where = f"messages[{i}]"
        message = obj(raw)
        role = message.get("role")
        if role not in ROLES:
            out.append(Violation(f"{where}.role", "role", f"unknown role {role!r}"))
            calls = None
            continue
        if "content" in message and not isinstance(message["content"], str):
            out.append(Violation(f"{where}.content", "content_string", "content must be a string"))
        if any(not isinstance(x, str) for x in items(message.get("images"))):
            out.append(Violation(f"{where}.images", "images", "images must be base64 strings"))
        if role == "tool":
            if not calls:
                out.append(Violation(where, "tool_after_call", "a tool message must follow an assistant tool call"))
                continue
            out += _check_answer(message, calls, where)
            continue
        calls = [obj(c) for c in items(message.get("tool_calls"))] if role == "assistant" else None
    return out


def _check_answer(message: dict[str, Any], calls: list[dict[str, Any]], where: str) -> list[Violation]:
    names = {obj(c.get("function")).get("name") for c in calls}
    ids = {c.get("id") for c in calls if c.get("id")}
    out: list[Violation] = []
    name = message.get("tool_name")
    if name is not None and name not in names:
        out.append(Violation(f"{where}.tool_name", "tool_name", f"no preceding call of {name!r}"))
    call_id = message.get("tool_call_id")
    if call_id is not None and ids and call_id not in ids:
        out.append(Violation(f"{where}.tool_call_id", "tool_call_id", f"no preceding call with id {call_id!r}"))
    return out
