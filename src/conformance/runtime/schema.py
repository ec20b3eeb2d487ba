"""Tool-schema sanitizing per provider, and client-side defaults.

`sanitize_schema(schema, profile)` returns a new schema the provider accepts plus what changed:

- keywords in ``profile.schema_strip_keywords`` are removed wherever they are keywords (never a
  property that happens to be called ``title`` or ``default``); each removal is listed;
- removed ``default`` values are kept in ``defaults`` (JSON pointer of the schema → value) so that
  `apply_defaults` can fill them into a tool call's arguments before the tool runs;
- ``schema_inline_refs``: local ``$ref`` (``#/$defs/…``, ``#/definitions/…``) are inlined and the
  definitions removed; a recursive reference cannot be inlined → `SchemaError` naming the path;
- ``schema_flatten_combinators``: ``anyOf`` is kept; ``oneOf`` becomes ``anyOf`` (exclusivity is
  lost — the model may satisfy two branches); ``allOf`` is merged into its parent: properties are
  united, ``required`` lists joined, and for any other keyword the first value wins (a conflicting
  later value is reported as a warning);
- ``schema_const_to_enum``: ``const`` becomes a one-value string ``enum``;
- ``schema_nullable_style == "nullable"``: ``type: [T, "null"]`` becomes ``type: T, nullable: true``
  (several non-null types become an ``anyOf``), and a ``null`` in an ``enum`` leaves the enum for
  ``nullable: true`` (else a nullable enum would offer the string ``"null"``);
- ``schema_enum_as_strings``: an enum of one non-string type (numbers, integers, booleans: the
  ``number`` of ``type: ["number", "null"]``) keeps its type, and ``nullable``, while its values,
  which the provider's string-only ``enum`` cannot hold, go to the description, with a warning
  (sent as strings it would admit strings and never its own type); any other enum's values become
  strings (JSON text for non-strings) and the type becomes ``string``, with a warning, since the
  model will then answer with strings;
- ``schema_string_formats``: a string ``format`` not in that list is dropped with a warning; a
  property *named* ``format`` is kept and warned about, since proxies often mistake it for the keyword.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.exceptions import SchemaError

_NAME_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


@dataclass(frozen=True)
class SanitizedSchema:
    schema: dict[str, Any]
    removed: list[tuple[str, str]] = field(default_factory=list)
    """(JSON pointer of the schema object, keyword) for every keyword removed."""
    defaults: dict[str, Any] = field(default_factory=dict)
    """JSON pointer of the schema object → the ``default`` removed from it."""
    warnings: list[str] = field(default_factory=list)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


class _Sanitizer:
    def __init__(self, root: dict[str, Any], profile: ProviderProfile) -> None:
        self.profile = profile
        self.defs: dict[str, Any] = {}
        for key in ("$defs", "definitions"):
            table = root.get(key)
            if isinstance(table, dict):
                self.defs.update({f"#/{key}/{name}": value for name, value in table.items()})
        self.removed: list[tuple[str, str]] = []
        self.defaults: dict[str, Any] = {}
        self.warnings: list[str] = []

    def remove(self, path: str, keyword: str) -> None:
        self.removed.append((path or "/", keyword))

    def walk(self, node: Any, path: str, refs: tuple[str, ...]) -> Any:
        if not isinstance(node, dict):
            return node
        p = self.profile
        node = dict(node)
        if p.schema_inline_refs and "$ref" in node:
            node, ref = self.inline(node, path, refs)
            refs = (*refs, ref)
        if p.schema_inline_refs and path == "":
            for key in ("$defs", "definitions"):
                if key in node:
                    del node[key]
                    self.remove(path, key)
        if p.schema_flatten_combinators:
            node = self.flatten(node, path, refs)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in p.schema_strip_keywords:
                self.remove(path, key)
                if key == "default":
                    self.defaults[path or ""] = copy.deepcopy(value)
                continue
            if key in _NAME_MAPS and isinstance(value, dict):
                if key == "properties" and "format" in value and p.schema_string_formats is not None:
                    self.warnings.append(
                        f"{path}/properties/format: a parameter is named 'format'; it is kept, but some "
                        "proxies treat it as the `format` keyword — consider renaming it"
                    )
                out[key] = {name: self.walk(sub, f"{path}/{key}/{_escape(name)}", refs) for name, sub in value.items()}
            elif key in _SUBSCHEMA:
                out[key] = self.walk(value, f"{path}/{key}", refs)
            elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
                out[key] = [self.walk(sub, f"{path}/{key}/{n}", refs) for n, sub in enumerate(value)]
            else:
                out[key] = copy.deepcopy(value)
        return self.restrict(out, path)

    def inline(self, node: dict[str, Any], path: str, refs: tuple[str, ...]) -> tuple[dict[str, Any], str]:
        ref = node.pop("$ref")
        where = f"{path or '/'}/$ref"
        if not isinstance(ref, str) or ref not in self.defs:
            raise SchemaError(f"cannot inline $ref {ref!r} (only local #/$defs/… and #/definitions/…)", where=where)
        if ref in refs:
            chain = " → ".join((*refs, ref))
            raise SchemaError(f"recursive $ref cannot be inlined: {chain}", where=where)
        target = self.defs[ref]
        return {**(target if isinstance(target, dict) else {}), **node}, ref

    def flatten(self, node: dict[str, Any], path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        if "oneOf" in node:
            branches = node.pop("oneOf")
            node["anyOf"] = [*node.get("anyOf", []), *branches]
            self.remove(path, "oneOf")
            self.warnings.append(f"{path or '/'}: oneOf sent as anyOf (exclusivity is not enforced)")
        if "allOf" in node:
            parts = node.pop("allOf")
            self.remove(path, "allOf")
            for n, raw in enumerate(parts if isinstance(parts, list) else []):
                part = dict(raw) if isinstance(raw, dict) else {}
                if self.profile.schema_inline_refs and "$ref" in part:
                    part, _ = self.inline(part, f"{path}/allOf/{n}", refs)
                for key, value in part.items():
                    if key == "properties" and isinstance(value, dict):
                        merged = dict(node.get("properties", {}))
                        for name, sub in value.items():
                            merged.setdefault(name, sub)
                        node["properties"] = merged
                    elif key == "required" and isinstance(value, list):
                        node["required"] = list(dict.fromkeys([*node.get("required", []), *value]))
                    elif key not in node:
                        node[key] = value
                    elif node[key] != value:
                        self.warnings.append(f"{path or '/'}/allOf/{n}: conflicting {key!r} ignored")
        return node

    def restrict(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        p = self.profile
        where = path or "/"
        if p.schema_const_to_enum and "const" in node:
            value = node.pop("const")
            self.remove(path, "const")
            node["enum"] = [value]
            if not isinstance(value, str):
                node.setdefault("type", _json_type(value))
        types = node.get("type")
        if p.schema_nullable_style == "nullable" and isinstance(types, list):
            real = [t for t in types if t != "null"]
            if "null" in types:
                node["nullable"] = True
            if len(real) == 1:
                node["type"] = real[0]
            else:
                del node["type"]
                if real:
                    node["anyOf"] = [*node.get("anyOf", []), *({"type": t} for t in real)]
        enum = node.get("enum")
        if p.schema_nullable_style == "nullable" and isinstance(enum, list) and None in enum:
            node["enum"] = [v for v in enum if v is not None]  # null is `nullable`, never the text "null"
            node["nullable"] = True
        if p.schema_enum_as_strings and isinstance(node.get("enum"), list) and _typed_enum(node):
            values = node.pop("enum")
            self.remove(path, "enum")
            if "type" not in node:
                node["type"] = _json_type(values[0])
            listed = ", ".join(json.dumps(v, ensure_ascii=False) for v in values)
            node["description"] = f"{node.get('description', '')} One of: {listed}.".strip()
            self.warnings.append(f"{where}: a {node['type']} enum sent as its type, the values in the description")
        if p.schema_enum_as_strings and isinstance(node.get("enum"), list):
            values = node["enum"]
            if not all(isinstance(v, str) for v in values):
                node["enum"] = [v if isinstance(v, str) else json.dumps(v) for v in values]
                self.warnings.append(f"{where}: enum values sent as strings; the model will answer with strings")
            if node.get("type", "string") != "string":
                self.warnings.append(f"{where}: type {node['type']!r} with an enum sent as 'string'")
            node["type"] = "string"
        allowed = p.schema_string_formats
        is_string = node.get("type", "string") == "string"
        if allowed is not None and is_string and "format" in node and node["format"] not in allowed:
            self.remove(path, "format")
            self.warnings.append(f"{where}: format {node.pop('format')!r} dropped (accepted: {', '.join(allowed)})")
        return node


def _typed_enum(node: dict[str, Any]) -> bool:
    """An enum whose values are all of one non-string type (numbers, integers or booleans) that the
    node declares or leaves undeclared: sent as strings it would admit strings, never its own type."""
    values = node["enum"]
    kinds = {_json_type(v) for v in values}
    if not values or len(kinds) != 1 or kinds & {"string", "null", "object", "array"}:
        return False
    (kind,) = kinds
    declared = node.get("type", kind)
    return declared == kind or (declared == "number" and kind == "integer")


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if value is None:
        return "null"
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else "string"


def sanitize_schema(schema: dict[str, Any], profile: ProviderProfile) -> SanitizedSchema:
    """A copy of `schema` that `profile` accepts, with what was removed and why (see module doc)."""
    if not isinstance(schema, dict):
        raise SchemaError("a tool schema must be a JSON object", where="/")
    sanitizer = _Sanitizer(schema, profile)
    result = sanitizer.walk(schema, "", ())
    for pointer in sanitizer.defaults:
        if not _applicable(pointer):
            sanitizer.warnings.append(
                f"{pointer or '/'}: default cannot be applied client-side (not under properties/items)"
            )
    return SanitizedSchema(result, sanitizer.removed, sanitizer.defaults, sanitizer.warnings)


def _applicable(pointer: str) -> bool:
    """A default at `pointer` can be filled in: a chain of ``properties/<name>`` and ``items``."""
    tokens = pointer.split("/")[1:]
    if not tokens:
        return False
    i = 0
    while i < len(tokens):
        if tokens[i] == "properties" and i + 1 < len(tokens):
            i += 2
        elif tokens[i] == "items":
            i += 1
        else:
            return False
    return tokens[-2:-1] == ["properties"]


def apply_defaults(arguments: dict[str, Any], sanitized: SanitizedSchema) -> dict[str, Any]:
    """A copy of `arguments` with the removed defaults filled in where a value is missing.

    Defaults apply along ``properties`` (objects) and ``items`` (every element of an array), outer
    ones first, so a nested default applies inside an object that an outer default created. A
    default under ``anyOf`` or other keywords is not applied (the branch is unknown).
    """
    out = copy.deepcopy(arguments)
    for pointer in sorted(sanitized.defaults, key=lambda x: (x.count("/"), x)):
        tokens = [_unescape(t) for t in pointer.split("/")[1:]]
        if _applicable(pointer):
            _fill(out, tokens, sanitized.defaults[pointer])
    return out


def _fill(node: Any, tokens: list[str], value: Any) -> None:
    if tokens[0] == "items":
        if isinstance(node, list):
            for element in node:
                _fill(element, tokens[1:], value)
        return
    if tokens[0] != "properties" or len(tokens) < 2 or not isinstance(node, dict):
        return
    name, rest = tokens[1], tokens[2:]
    if not rest:
        if name not in node:
            node[name] = copy.deepcopy(value)
    elif name in node:
        _fill(node[name], rest, value)
