"""Tool-call argument text → the contract's `arguments` object (+ `raw_arguments`)."""

from __future__ import annotations

from typing import Any

import orjson

from conformance import jsonvalue


def parse_arguments(text: str | None) -> tuple[dict[str, Any], str | None]:
    """`""`, `"{}"`, `null` or absent → `{}`; not a JSON object → `{}` plus the original text."""
    if text is None or not text.strip():
        return {}, None
    try:
        value = jsonvalue.loads(text)
    except orjson.JSONDecodeError:
        return {}, text
    if value is None:
        return {}, None
    if isinstance(value, dict):
        return value, None
    return {}, text


def coerce_arguments(value: Any) -> tuple[dict[str, Any], str | None]:
    """Arguments that arrived as a JSON value (object providers) or as text (string providers)."""
    if value is None:
        return {}, None
    if isinstance(value, dict):
        return value, None
    if isinstance(value, str):
        return parse_arguments(value)
    return {}, orjson.dumps(value).decode()
