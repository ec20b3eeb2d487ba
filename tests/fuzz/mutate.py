"""Hypothesis strategies that damage well-formed inputs: JSON values with a subtree replaced by
a value of another type, deep nesting, or unusual strings; SSE/NDJSON bodies with events mutated,
dropped, duplicated or cut; bytes flipped, inserted or truncated; any chunking."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

from hypothesis import strategies as st

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["", "text", "tool_use", "function", "stop", "length", "\ud800x", "\x00", "0", "-1"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def deep(draw: st.DrawFn) -> Any:
    """Arrays or objects nested 100 to 1,100 levels deep (parsers stop near 1,024)."""
    depth = draw(st.integers(100, 1100))
    value: Any = draw(SCALARS)
    for _ in range(depth):
        value = [value] if draw(st.booleans()) else {"a": value}
    return value


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*prefix, i))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(copy[head], rest, new)
    return copy


@st.composite
def mutated_json(draw: st.DrawFn, value: Any) -> Any:
    """`value` with one to three subtrees replaced (by another type, a deep value, or removed)."""
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(value)
        path = draw(st.sampled_from(paths))
        new = draw(st.one_of(VALUES, VALUES, deep(), st.just("__drop__")))
        if new == "__drop__" and path:
            parent = path[:-1]
            holder = value
            for key in parent:
                holder = holder[key]
            if isinstance(holder, dict):
                value = _replace(value, parent, {k: v for k, v in holder.items() if k != path[-1]})
            continue
        value = _replace(value, path, new)
    return value


def dumps(value: Any) -> bytes:
    try:
        return json.dumps(value, ensure_ascii=False).encode("utf-8", errors="surrogatepass")
    except RecursionError:
        return b"[" * 2000


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """Byte-level damage: flips, insertions, deletions, truncation, a repeated slice."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "repeat"]))
        at = draw(st.integers(0, len(out)))
        if op == "flip" and at < len(out):
            out[at] = draw(st.integers(0, 255))
        elif op == "insert":
            out[at:at] = draw(
                st.binary(min_size=1, max_size=16) | st.sampled_from([b"\n\n", b"data: ", b"\r", b"{", b"\xed\xa0\x80"])
            )
        elif op == "delete":
            del out[at : at + draw(st.integers(1, 16))]
        elif op == "truncate":
            del out[at:]
        elif op == "repeat":
            out[at:at] = out[at : at + draw(st.integers(1, 64))] * draw(st.integers(1, 8))
    return bytes(out)


@st.composite
def chunked(draw: st.DrawFn, body: bytes) -> list[bytes]:
    """`body` split at any points (possibly inside a UTF-8 sequence or a line ending)."""
    if not body:
        return [body]
    cuts = sorted(set(draw(st.lists(st.integers(0, len(body)), max_size=12))))
    bounds = [0, *cuts, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds) if b >= a] or [body]


def split_events(body: bytes) -> list[bytes]:
    """An SSE or NDJSON body cut into its records (blank-line or newline separated)."""
    if b"\n\n" in body:
        return [e for e in body.split(b"\n\n") if e.strip()]
    return [e for e in body.split(b"\n") if e.strip()]


_DEEP_LIST: Any = []
for _ in range(300):
    _DEEP_LIST = [_DEEP_LIST]
_POOL: tuple[Any, ...] = ([], {}, "", "x", 0, -1, 2**64, 1e308, None, True, [[]], {"a": []}, "\ud800", _DEEP_LIST)
_TOKENS = (
    b"\n",
    b"\n\n",
    b"\r\n",
    b"data: ",
    b"event: error\n",
    b"{",
    b"}",
    b"[",
    b'"',
    b"\\",
    b"\xff",
    b"\xed\xa0\x80",
    b"\x00",
)


class Mutator:
    """Fast seeded damage for the long campaign: each hypothesis example fans out into a batch of
    inputs made with `random.Random(seed)` (reproducible from the example alone)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def json_value(self, value: Any) -> Any:
        paths = _paths(value)
        for _ in range(self.rng.randint(1, 3)):
            path = self.rng.choice(paths)
            try:
                value = _replace(value, path, self.rng.choice(_POOL))
            except (KeyError, IndexError, TypeError):
                break
            paths = _paths(value) if len(paths) < 5000 else paths
        return value

    def data(self, data: bytes) -> bytes:
        out = bytearray(data)
        rng = self.rng
        for _ in range(rng.randint(1, 4)):
            op = rng.randrange(5)
            at = rng.randint(0, len(out))
            if op == 0 and at < len(out):
                out[at] = rng.randrange(256)
            elif op == 1:
                out[at:at] = rng.choice(_TOKENS)
            elif op == 2:
                del out[at : at + rng.randint(1, 16)]
            elif op == 3:
                del out[at:]
            else:
                out[at:at] = out[at : at + rng.randint(1, 64)] * rng.randint(1, 8)
        return bytes(out)

    def events(self, body: bytes) -> bytes:
        """A stream body with one event's JSON damaged (or the bytes, when it has none)."""
        events = split_events(body)
        if not events:
            return self.data(body)
        i = self.rng.randrange(len(events))
        head, sep, payload = events[i].rpartition(b"data:") if b"data:" in events[i] else (b"", b"", events[i])
        try:
            value = json.loads(payload)
        except ValueError:
            events[i] = self.data(events[i])
        else:
            events[i] = head + sep + b" " + dumps(self.json_value(value))
        sep2 = b"\n\n" if b"\n\n" in body else b"\n"
        return sep2.join(events) + sep2

    def body(self, body: bytes) -> bytes:
        choice = self.rng.randrange(4)
        if choice == 0:
            return self.data(body)
        if choice == 1:
            try:
                return dumps(self.json_value(json.loads(body)))
            except ValueError:
                return self.events(body)
        return self.events(body)

    def chunks(self, body: bytes) -> list[bytes]:
        if not body:
            return [body]
        cuts = sorted({self.rng.randint(0, len(body)) for _ in range(self.rng.randint(0, 8))})
        bounds = [0, *cuts, len(body)]
        return [body[a:b] for a, b in itertools.pairwise(bounds)]


def batch_size() -> int:
    """Extra seeded inputs per hypothesis example: a few normally, many in the long campaign."""
    from tests.fuzz.contract import long_run

    return 100 if long_run() else 2
