"""The one JSON parser for what comes from outside (response bodies, stream events, tool
arguments, files): `orjson.loads`, refusing values nested deeper than `MAX_DEPTH`.

The parser accepts 1,024 levels but the serializer stops at 254, so a value between the two would
parse and then fail as an untyped error wherever it is written back (an outcome, a cassette, a
report). Refused here, it is just invalid JSON: every caller already handles
`orjson.JSONDecodeError` (a `ValueError`) as such.
"""

from __future__ import annotations

from typing import Any

import orjson

MAX_DEPTH = 200
"""Deepest nesting accepted (a value this deep still serializes inside an outcome's envelope)."""


def depth(value: Any, *, stop: int = MAX_DEPTH + 1) -> int:
    """How deep `value` nests (a scalar is 0), without recursion; stops counting at `stop`.
    Only containers are visited: a long flat list costs one type test per item."""
    if not isinstance(value, dict | list):
        return 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if level > deepest:
            deepest = level
            if deepest >= stop:
                return deepest
        below = level + 1
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, dict | list):
                stack.append((child, below))
    return deepest


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse JSON; nesting deeper than `MAX_DEPTH` raises `orjson.JSONDecodeError` like bad syntax."""
    value = orjson.loads(data)
    # only text with more than MAX_DEPTH brackets can nest that deep: the common, short event
    # costs one length check (this sits on the per-event path of every stream)
    return bounded(data, value) if len(data) > MAX_DEPTH else value


def bounded(data: bytes | bytearray | memoryview | str, value: Any) -> Any:
    """`value` parsed from `data`, or `orjson.JSONDecodeError` when it nests deeper than `MAX_DEPTH`.
    Hot paths call `orjson.loads` themselves and this only for text longer than `MAX_DEPTH`
    (`loads` in one call costs a function call per stream event)."""
    if value.__class__ is dict or value.__class__ is list:
        if isinstance(data, str):
            brackets = data.count("[") + data.count("{")
        else:
            raw = data if isinstance(data, bytes | bytearray) else bytes(data)
            brackets = raw.count(b"[") + raw.count(b"{")
        if brackets > MAX_DEPTH and depth(value) > MAX_DEPTH:
            raise orjson.JSONDecodeError(f"JSON nested deeper than {MAX_DEPTH} levels", "", 0)
    return value
