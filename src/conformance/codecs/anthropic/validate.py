"""Anthropic Messages request rules (reference §3.2, hazard checklist §10).

- ``model``, ``messages`` and ``max_tokens`` (an integer ≥ 1) are required;
- roles are ``user`` and ``assistant`` only, and the first message is a user message;
- consecutive same-role messages are read as one turn, as the API does ("consecutive user or
  assistant turns in your request will be combined into a single turn", the official SDK's
  ``message_create_params.py``; older versions rejected them): the rules below apply to the
  combined turns, so a `tool_result` must still come first in the turn after its `tool_use`;
- ``tool_use`` ids match ``^[a-zA-Z0-9_-]+$`` (and ``profile.tool_id_pattern``);
- every ``tool_use`` is answered by a ``tool_result`` in the immediately following user message,
  and ``tool_result`` blocks come first in that message (a final assistant message holding a
  ``tool_use`` breaks ``pending_call``: the API answers it with the same 400); a ``tool_result``
  answers a ``tool_use`` of the message before it;
- no empty text blocks; ``tool_use.input`` is an object; thinking blocks carry a signature;
- a ``system`` message is ``system_message``, except one holding only ``tool_addition`` blocks
  (a beta feature real traffic sends and gets 200 for).

Which of these a provider enforces, and on what evidence, is its rule book's (`rules.py`).
"""

from __future__ import annotations

import re
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.anthropic.rules import SYSTEM_MESSAGE_BLOCKS
from conformance.codecs.validation import PENDING_CALL, Violation, items, obj, require_model_and_list

TOOL_USE_ID = r"[a-zA-Z0-9_-]+"


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [obj(b) for b in items(content)]


def validate_request(body: dict[str, Any], profile: ProviderProfile) -> list[Violation]:
    out = require_model_and_list(body, "messages")
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        out.append(Violation("max_tokens", "max_tokens_required", "`max_tokens` is required (an integer >= 1)"))
    messages = [obj(m) for m in items(body.get("messages"))]
    turns: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = []
    """(role, path of its first message, (path, block) of every block): same-role neighbours combined."""
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        role = message.get("role")
        if role == "system":
            held = _blocks(message.get("content"))
            if not held or any(b.get("type") not in SYSTEM_MESSAGE_BLOCKS for b in held):
                out.append(Violation(f"{where}.role", "system_message", "a system message in messages"))
            continue
        if role not in ("user", "assistant"):
            out.append(Violation(f"{where}.role", "role", f"role must be user or assistant, not {role!r}"))
            continue
        if i == 0 and role != "user":
            out.append(Violation(f"{where}.role", "first_user", "the first message must use the user role"))
        blocks = [(f"{where}.content[{j}]", b) for j, b in enumerate(_blocks(message.get("content")))]
        if turns and turns[-1][0] == role:
            turns[-1][2].extend(blocks)
        else:
            turns.append((role, where, blocks))
    expected: dict[str, str] = {}
    """tool_use ids of the previous assistant turn → their paths."""
    for role, _where, blocks in turns:
        for path, block in blocks:
            out += _check_block(block, path, profile)
        if role == "user":
            out += _check_results(blocks, expected)
            expected = {}
        else:
            for call_id, path in expected.items():
                out.append(Violation(path, "tool_use_unanswered", f"tool_use {call_id!r} has no tool_result after it"))
            expected = {str(b.get("id")): path for path, b in blocks if b.get("type") == "tool_use"}
    for call_id, path in expected.items():
        out.append(
            Violation(path, PENDING_CALL, f"tool_use {call_id!r} has no tool_result: the request ends before it")
        )
    return out


def _check_results(blocks: list[tuple[str, dict[str, Any]]], expected: dict[str, str]) -> list[Violation]:
    out: list[Violation] = []
    seen_other = False
    answered: set[str] = set()
    for path, block in blocks:
        if block.get("type") != "tool_result":
            seen_other = True
            continue
        call_id = str(block.get("tool_use_id"))
        if seen_other:
            out.append(Violation(path, "tool_result_first", "tool_result blocks must come first"))
        if call_id not in expected:
            out.append(Violation(path, "orphan_tool_result", f"no tool_use {call_id!r} right before it"))
        answered.add(call_id)
    for call_id, path in expected.items():
        if call_id not in answered:
            out.append(
                Violation(
                    path,
                    "tool_use_unanswered",
                    f"tool_use {call_id!r} has no tool_result in the next message",
                )
            )
    return out


def _check_block(block: dict[str, Any], where: str, profile: ProviderProfile) -> list[Violation]:
    kind = block.get("type")
    if kind == "text" and not block.get("text"):
        return [Violation(where, "empty_text", "text content blocks must be non-empty")]
    if kind == "thinking" and not block.get("signature"):
        return [Violation(where, "thinking_signature", "a thinking block needs its signature")]
    if kind != "tool_use":
        return []
    out: list[Violation] = []
    call_id = block.get("id")
    patterns = [TOOL_USE_ID] + ([profile.tool_id_pattern] if profile.tool_id_pattern else [])
    if not isinstance(call_id, str) or not all(re.fullmatch(p, call_id) for p in patterns):
        out.append(Violation(f"{where}.id", "tool_use_id", f"{call_id!r} does not match ^{TOOL_USE_ID}$"))
    if not isinstance(block.get("input"), dict):
        out.append(Violation(f"{where}.input", "input_object", "tool_use input must be an object"))
    return out
