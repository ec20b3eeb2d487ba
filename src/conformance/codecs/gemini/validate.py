"""Gemini generateContent request rules (reference §4.2, §4.3, hazard checklist §10).

- ``contents`` is required; roles are ``user`` and ``model`` only (absent means user);
- contents start with a user turn and alternate strictly;
- a function-call turn comes right after a user turn or a function-response turn;
- a function-response turn comes right after a function-call turn, with as many
  ``functionResponse`` parts as that turn has ``functionCall`` parts, and a function-call turn is
  followed by one (a request ending with a function-call turn breaks ``pending_call``);
- ``functionResponse.response`` is an object;
- function-declaration ``parameters`` hold none of the keywords the profile strips, no ``const``,
  ``$ref`` or ``$defs``, no type arrays, only string enum values, and only the string formats the
  profile accepts.
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.validation import PENDING_CALL, Violation, items, obj, schema_nodes

ROLES = ("user", "model")
_ALWAYS_REJECTED = ("const", "$ref", "$defs", "definitions")


def _count(parts: list[dict[str, Any]], key: str) -> int:
    return sum(key in p for p in parts)


def validate_request(body: dict[str, Any], profile: ProviderProfile) -> list[Violation]:
    out: list[Violation] = []
    contents = [obj(c) for c in items(body.get("contents"))]
    if not contents:
        out.append(Violation("contents", "required", "`contents` is required (a non-empty list)"))
    prev: dict[str, Any] | None = None
    for i, content in enumerate(contents):
        where = f"contents[{i}]"
        role = content.get("role", "user")
        parts = [obj(p) for p in items(content.get("parts"))]
        if role not in ROLES:
            out.append(Violation(f"{where}.role", "role", f"Please use a valid role: user, model (not {role!r})"))
        if i == 0 and role != "user":
            out.append(Violation(f"{where}.role", "first_user", "contents must start with a user turn"))
        prev_role = None if prev is None else prev.get("role", "user")
        prev_parts = [] if prev is None else [obj(p) for p in items(prev.get("parts"))]
        if prev is not None and prev_role == role:
            out.append(Violation(f"{where}.role", "alternation", "user and model turns must alternate"))
        calls, responses = _count(parts, "functionCall"), _count(parts, "functionResponse")
        if calls and prev_role != "user":
            out.append(
                Violation(
                    where,
                    "call_after_user",
                    "a function call turn must follow a user or function response turn",
                )
            )
        if responses:
            expected = _count(prev_parts, "functionCall")
            if not expected:
                out.append(
                    Violation(
                        where,
                        "response_after_call",
                        "a function response turn must follow a function call turn",
                    )
                )
            elif responses != expected:
                out.append(
                    Violation(
                        where,
                        "response_count",
                        f"{responses} function response part(s) for {expected} function call part(s)",
                    )
                )
        for j, part in enumerate(parts):
            if "functionResponse" in part and not isinstance(obj(part["functionResponse"]).get("response"), dict):
                path = f"{where}.parts[{j}].functionResponse.response"
                out.append(Violation(path, "response_object", "functionResponse.response must be an object"))
        prev = content
    out += _pending(contents)
    for t, tool in enumerate(items(body.get("tools"))):
        for d, decl in enumerate(items(obj(tool).get("functionDeclarations"))):
            params = obj(decl).get("parameters")
            out += _check_schema(params, f"tools[{t}].functionDeclarations[{d}].parameters", profile)
    return out


def _pending(contents: list[dict[str, Any]]) -> list[Violation]:
    """A request ending with a function call turn: no function response turn follows it."""
    last = contents[-1] if contents else {}
    if last.get("role", "user") != "model" or not _count([obj(p) for p in items(last.get("parts"))], "functionCall"):
        return []
    where = f"contents[{len(contents) - 1}]"
    return [Violation(where, PENDING_CALL, "a function call turn must be followed by a function response turn")]


def _check_schema(schema: Any, where: str, profile: ProviderProfile) -> list[Violation]:
    out: list[Violation] = []
    rejected = set(profile.schema_strip_keywords) | set(_ALWAYS_REJECTED)
    formats = profile.schema_string_formats or ("enum", "date-time")
    for path, node in schema_nodes(schema, where):
        for key in node:
            if key in rejected:
                out.append(Violation(f"{path}.{key}", "schema_keyword", f"keyword {key!r} is not accepted"))
        if isinstance(node.get("type"), list):
            out.append(Violation(f"{path}.type", "schema_type_array", "type must be one type (use nullable)"))
        if any(not isinstance(v, str) for v in items(node.get("enum"))):
            out.append(Violation(f"{path}.enum", "schema_enum_strings", "enum values must be strings"))
        if node.get("type", "string") == "string" and "format" in node and node["format"] not in formats:
            out.append(Violation(f"{path}.format", "schema_format", f"format {node['format']!r} is not accepted"))
    return out
