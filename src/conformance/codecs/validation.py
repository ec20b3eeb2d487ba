"""What the request validators share: `Violation`, the `Validator` signature and a few type-safe accessors."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.capabilities import ProviderProfile


@dataclass(frozen=True)
class Violation:
    """One broken request rule: where, which rule, and a readable message."""

    path: str
    """Where in the request body, e.g. ``messages[2].content[0]``."""
    rule: str
    """A stable rule id, e.g. ``tool_result_first``."""
    message: str


PENDING_CALL = "pending_call"
"""The rule a request breaks when the last assistant turn holds calls without results and nothing
follows them: every provider with call/result pairing rejects it (Anthropic: "`tool_use` ids were
found without `tool_result` blocks immediately after"; OpenAI: "An assistant message with
'tool_calls' must be followed by tool messages responding to each 'tool_call_id'"; Gemini: a
function call turn must be followed by a function response turn; OpenAI Responses: "No tool output
found for function call"). A transcript may end so while its tools run (a turn loop's state, not a
request): checks of transcripts leave this rule out (`validate(..., awaiting_tools=True)`)."""


Validator = Callable[[dict[str, Any], "ProviderProfile"], list[Violation]]
"""A dialect's request rules: the wire body → its violations."""


def items(value: Any) -> list[Any]:
    """`value` if it is a list, else an empty list."""
    return value if isinstance(value, list) else []


def obj(value: Any) -> dict[str, Any]:
    """`value` if it is a dict, else an empty dict."""
    return value if isinstance(value, dict) else {}


def require_model_and_list(body: dict[str, Any], key: str) -> list[Violation]:
    """Violations for a missing or empty `model` string and a missing or empty `body[key]` list."""
    out: list[Violation] = []
    if not isinstance(body.get("model"), str) or not body["model"]:
        out.append(Violation("model", "model_required", "`model` is required (a non-empty string)"))
    if not isinstance(body.get(key), list) or not body[key]:
        out.append(Violation(key, f"{key}_required", f"`{key}` is required (a non-empty list)"))
    return out


def temperature_range(body: dict[str, Any], low: float = 0, high: float = 2) -> list[Violation]:
    """A `temperature` outside `low..high` (the OpenAI dialects document 0 to 2)."""
    value = body.get("temperature")
    if isinstance(value, int | float) and not isinstance(value, bool) and not low <= value <= high:
        return [Violation("temperature", "temperature_range", f"temperature must be between {low} and {high}")]
    return []


_NAME_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def schema_nodes(schema: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in `schema` (keyword positions only), with its path."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key, value in schema.items():
        if key in _NAME_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from schema_nodes(sub, f"{path}.{key}.{name}")
        elif key in _SUBSCHEMA:
            yield from schema_nodes(value, f"{path}.{key}")
        elif key in _SUBSCHEMA_LISTS:
            for n, sub in enumerate(items(value)):
                yield from schema_nodes(sub, f"{path}.{key}[{n}]")
