"""Gemini generateContent request rules (reference §4.2, §4.3, hazard checklist §10).

- ``contents`` is required; roles are ``user`` and ``model`` only (absent means user);
- contents start with a user turn; consecutive same-role contents are flagged ``alternation``
  (older models rejected them) and are otherwise read as one turn, as real traffic shows Gemini 2.5
  and 3 reading them (three consecutive ``user`` contents of one function response each answer a
  turn of three calls: 200);
- on those turns: a function-call turn comes right after a user turn (or a function-response
  turn); a function-response turn comes right after a function-call turn, with as many
  ``functionResponse`` parts as that turn has ``functionCall`` parts, and a function-call turn is
  followed by one (a request ending with a function-call turn breaks ``pending_call``);
- ``functionResponse.response`` is an object;
- function-declaration ``parameters`` hold none of the keywords the rule book lists as rejected
  (`schema_keyword.<keyword>`), no type arrays, only string enum values, and only the string formats
  the profile accepts.

The body is read with its proto3 JSON names first (`system_instruction` ≡ `systemInstruction`);
which rules a provider enforces, and on what evidence, is the rule book's (`rules.py`).
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.gemini.rules import SCHEMA_KEYWORD
from conformance.codecs.rulebook import rule_book
from conformance.codecs.validation import PENDING_CALL, Violation, items, obj, schema_nodes

ROLES = ("user", "model")


def _count(parts: list[dict[str, Any]], key: str) -> int:
    return sum(key in p for p in parts)


def _turns(contents: list[dict[str, Any]], out: list[Violation]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(role, path of its first content, parts): consecutive same-role contents combined."""
    turns: list[tuple[str, str, list[dict[str, Any]]]] = []
    for i, content in enumerate(contents):
        where = f"contents[{i}]"
        role = content.get("role", "user")
        parts = [obj(p) for p in items(content.get("parts"))]
        if role not in ROLES:
            out.append(Violation(f"{where}.role", "role", f"Please use a valid role: user, model (not {role!r})"))
        if i == 0 and role != "user":
            out.append(Violation(f"{where}.role", "first_user", "contents must start with a user turn"))
        for j, part in enumerate(parts):
            if "functionResponse" in part and not isinstance(obj(part["functionResponse"]).get("response"), dict):
                path = f"{where}.parts[{j}].functionResponse.response"
                out.append(Violation(path, "response_object", "functionResponse.response must be an object"))
        if turns and turns[-1][0] == role:
            out.append(Violation(f"{where}.role", "alternation", "user and model turns must alternate"))
            turns[-1][2].extend(parts)
        else:
            turns.append((role, where, parts))
    return turns


def validate_request(body: dict[str, Any], profile: ProviderProfile) -> list[Violation]:
    out: list[Violation] = []
    contents = [obj(c) for c in items(body.get("contents"))]
    if not contents:
        out.append(Violation("contents", "contents_required", "`contents` is required (a non-empty list)"))
    prev: tuple[str, str, list[dict[str, Any]]] | None = None
    for turn in _turns(contents, out):
        _role, where, parts = turn
        calls, responses = _count(parts, "functionCall"), _count(parts, "functionResponse")
        prev_role = None if prev is None else prev[0]
        if calls and prev_role != "user":
            out.append(
                Violation(where, "call_after_user", "a function call turn must follow a user or function response turn")
            )
        if responses:
            expected = 0 if prev is None else _count(prev[2], "functionCall")
            if not expected:
                out.append(
                    Violation(where, "response_after_call", "a function response turn must follow a function call turn")
                )
            elif responses != expected:
                message = f"{responses} function response part(s) for {expected} function call part(s)"
                out.append(Violation(where, "response_count", message))
        prev = turn
    if prev is not None and prev[0] == "model" and _count(prev[2], "functionCall"):
        message = "a function call turn must be followed by a function response turn"
        out.append(Violation(prev[1], PENDING_CALL, message))
    for t, tool in enumerate(items(body.get("tools"))):
        for d, decl in enumerate(items(obj(tool).get("functionDeclarations"))):
            params = obj(decl).get("parameters")
            out += _check_schema(params, f"tools[{t}].functionDeclarations[{d}].parameters", profile)
    return out


def _check_schema(schema: Any, where: str, profile: ProviderProfile) -> list[Violation]:
    out: list[Violation] = []
    listed = {r.id[len(SCHEMA_KEYWORD) :] for r in rule_book("gemini").rules if r.id.startswith(SCHEMA_KEYWORD)}
    formats = profile.schema_string_formats or ("enum", "date-time")
    for path, node in schema_nodes(schema, where):
        for key in node:
            if key in listed:
                out.append(Violation(f"{path}.{key}", SCHEMA_KEYWORD + key, f"keyword {key!r} is not accepted"))
        if isinstance(node.get("type"), list):
            out.append(Violation(f"{path}.type", "schema_type_array", "type must be one type (use nullable)"))
        if any(not isinstance(v, str) for v in items(node.get("enum"))):
            out.append(Violation(f"{path}.enum", "schema_enum_strings", "enum values must be strings"))
        if node.get("type", "string") == "string" and "format" in node and node["format"] not in formats:
            out.append(Violation(f"{path}.format", "schema_format", f"format {node['format']!r} is not accepted"))
    return out
