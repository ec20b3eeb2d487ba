"""The one JSON parser for what comes from outside (response bodies, stream events, tool
arguments, files): `orjson.loads`, refusing values nested deeper than `MAX_DEPTH`.

The parser accepts 1,024 levels but the serializer stops at 254, so a value between the two would
parse and then fail as an untyped error wherever it is written back (an outcome, a cassette, a
report). Refused here, it is just invalid JSON: every caller already handles
`orjson.JSONDecodeError` (a `ValueError`) as such.
"""

from __future__ import annotations

import math
import re
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


MAX_CHARS = 4_096
"""Longest string `safe` keeps when asked to shorten (`shorten=True`): a report needs the start of it."""
MAX_ITEMS = 1_000
"""Most items of one list or object `safe` keeps when asked to shorten."""
MAX_VALUE_CHARS = 65_536
"""Most characters of strings one value keeps, all its strings together, when `safe` is asked to
shorten: a value of many long strings (a runtime answering a 50 MB request) stays a few pages."""


def _encodable(text: str) -> bool:
    """Whether `text` encodes as UTF-8 as it is (holds no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escape(text: str) -> str:
    """`text` with lone surrogates written as `\\udXXX` escapes (they cannot be encoded as UTF-8)."""
    return text if _encodable(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)
"""Characters that move, hide or reorder what a terminal or page shows around them: C0 and C1
controls (escape sequences, carriage returns, newlines), zero-width and bidirectional formatting
characters (U+202E turns the rest of a line around), line and paragraph separators."""


def printable(text: str) -> str:
    """`text` with every control, zero-width and bidirectional formatting character written as its
    escape (`\\x1b`, `\\u202e`): what a program printed, shown on one line as it is."""
    if text.isascii() and text.isprintable():
        return text
    return _UNPRINTABLE.sub(lambda m: repr(m.group(0))[1:-1] if m.group(0) in "\t\n\r" else _hex(m.group(0)), text)


def _hex(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _escape(key)
    if key is None or isinstance(key, bool):
        return "null" if key is None else ("true" if key else "false")
    if isinstance(key, float) and key != key:
        return "NaN"
    return _escape(str(key))


def _scalar(value: Any, shorten: bool, budget: list[int] | None = None) -> Any:
    """A JSON scalar for `value` (not a container): strings escaped, NaN and infinities spelled out;
    with `shorten`, a string is cut to `MAX_CHARS`, and to what is left of `budget[0]` characters,
    saying how long it was."""
    if value is None or value is True or value is False or value.__class__ is int:
        return value
    if isinstance(value, str):
        if not shorten:
            return _escape(value)
        keep = MAX_CHARS if budget is None else max(0, min(MAX_CHARS, budget[0]))
        if budget is not None:
            budget[0] -= min(len(value), keep)
        if len(value) <= keep:
            return _escape(value)
        return f"{_escape(value[:keep])}… [{len(value) - keep:,} more characters, {len(value):,} in all]"
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return _scalar(repr(bytes(value)), shorten, budget)
    try:
        text = repr(value)
    except Exception as exc:  # an object whose repr raises is still reported, by its type
        text = f"<{type(value).__name__} object: repr raised {type(exc).__name__}>"
    return _scalar(text, True, budget)


def _plain_keys(item: dict[Any, Any]) -> bool:
    """Whether every key of `item` is a string that encodes as UTF-8 (what `safe` keeps as is)."""
    return all(key.__class__ is str and (key.isascii() or _encodable(key)) for key in item)


def _unchanged(value: Any, shorten: bool, max_depth: int) -> bool:
    """Whether `safe` would return `value` itself: plain dicts with string keys and plain lists no
    deeper than `max_depth`, holding strings that encode as UTF-8, finite floats, ints, booleans and
    None (and, with `shorten`, nothing `safe` would cut). One type test per item and no copy: most
    values a runtime answers are already plain, and `safe` then walks nothing. Anything else
    (a subclass, a tuple, a non-string key) answers False, and `safe` decides it the long way."""
    cls = value.__class__
    if cls is not dict and cls is not list:
        return False  # a scalar: `safe`'s own walk is one call
    chars = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if level >= max_depth or (shorten and len(item) > MAX_ITEMS):
            return False
        if item.__class__ is dict:
            if not _plain_keys(item):
                return False
            children = item.values()
        else:
            children = item
        below = level + 1
        for child in children:
            cls = child.__class__
            if cls is str:
                if not (child.isascii() or _encodable(child)):
                    return False
                if shorten:
                    if len(child) > MAX_CHARS:
                        return False
                    chars += len(child)
            elif cls is dict or cls is list:
                stack.append((child, below))
            elif cls is float:
                if not math.isfinite(child):
                    return False
            elif not (cls is int or cls is bool or child is None):
                return False
    return chars <= MAX_VALUE_CHARS


def safe(value: Any, *, shorten: bool = False, max_depth: int = MAX_DEPTH) -> Any:
    """`value` as plain JSON that every encoder accepts, whatever it held; never raises.

    Lone surrogates become `\\udXXX` escapes, NaN and infinities the strings `"NaN"`, `"Infinity"`,
    `"-Infinity"`, keys strings, tuples and sets lists, bytes and other objects their `repr`, and
    anything nested deeper than `max_depth` a string saying so. With `shorten`, strings longer than
    `MAX_CHARS` and containers longer than `MAX_ITEMS` are cut with a note of what was left out (for
    a report; a judgment takes the whole value), and all its strings together to `MAX_VALUE_CHARS`
    characters, each cut string saying how long it was. A value that needs none of it is returned as is."""
    if _unchanged(value, shorten, max_depth):
        return value
    return _walked(value, shorten, max_depth)


def _walked(value: Any, shorten: bool, max_depth: int) -> Any:
    """`safe`'s answer, item by item: containers rebuilt where an item changed, kept where none did."""
    budget = [MAX_VALUE_CHARS] if shorten else None

    def walk(v: Any, level: int) -> Any:
        if isinstance(v, dict):
            if level >= max_depth:
                return f"<an object nested deeper than {max_depth} levels>"
            pairs = list(v.items())
            extra = 0
            if shorten and len(pairs) > MAX_ITEMS:
                extra, pairs = len(pairs) - MAX_ITEMS, pairs[:MAX_ITEMS]
            out = {_key(k): walk(x, level + 1) for k, x in pairs}
            if extra:
                out["…"] = f"[{extra} more keys]"
            same_keys = len(out) == len(v) and all(k is o for k, o in zip(v, out, strict=True))
            if not extra and same_keys and all(a is b for a, b in zip(out.values(), v.values(), strict=True)):
                return v
            return out
        if isinstance(v, list | tuple | set | frozenset):
            if level >= max_depth:
                return f"<a list nested deeper than {max_depth} levels>"
            seq = list(v) if isinstance(v, list | tuple) else sorted(v, key=repr)
            extra = 0
            if shorten and len(seq) > MAX_ITEMS:
                extra, seq = len(seq) - MAX_ITEMS, seq[:MAX_ITEMS]
            items: list[Any] = [walk(x, level + 1) for x in seq]
            if extra:
                items.append(f"… [{extra} more items]")
            if v.__class__ is list and not extra and all(a is b for a, b in zip(items, v, strict=True)):
                return v
            return items
        return _scalar(v, shorten, budget)

    return walk(value, 0)
