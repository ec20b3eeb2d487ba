"""A hostile runtime: the reference runtime whose every output carries a value JSON cannot hold as is.

Each capability returns what the reference returns with its last string replaced by a hostile value
(a lone surrogate, NaN, infinity, a huge string, a deeply nested list, bytes, a set, an object, an
object whose keys are not strings). The harness must save every such result in matrix.json (escaped) and
judge it: `conformance run --runtime tests.harness.hostile:make` writes a matrix and exits 1.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

from conformance.runtime.protocol import TurnRequest
from conformance.runtime.reference import ReferenceRuntime


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


def _wide_and_deep() -> Any:
    value: Any = {"k": "\udc80"}
    for i in range(2_000):
        value = {f"level{i % 3}": value, "nan": math.nan}
    return value


class _Opaque:
    def __repr__(self) -> str:
        return "<opaque object>"


HOSTILE: dict[str, Callable[[], Any]] = {
    "surrogate": lambda: "half an emoji \ud83d",
    "nan": lambda: math.nan,
    "infinity": lambda: -math.inf,
    "huge": lambda: "x" * 3_000_000,
    "deep": lambda: _deep(50_000),
    "wide_and_deep": _wide_and_deep,
    "bytes": lambda: b"\xff\xfe raw",
    "set": lambda: {1, 2, 3},
    "object": _Opaque,
    "surrogate_key": lambda: {"\ud800": 1, 3.5: math.inf, None: "x"},
}
"""Kinds of hostile value, by name."""


def poison(value: Any, hostile: Any) -> Any:
    """`value` with its last string (depth first: a text, an argument, an error message rather than a
    role) replaced by `hostile`; a value without strings is returned with `hostile` beside it."""
    path: list[Any] = []

    def find(v: Any, at: list[Any]) -> None:
        nonlocal path
        if isinstance(v, str):
            path = at
        elif isinstance(v, dict):
            for k, x in v.items():
                find(x, [*at, k])
        elif isinstance(v, list):
            for i, x in enumerate(v):
                find(x, [*at, i])

    find(value, [])
    if not path:
        return {"value": value, "hostile": hostile} if not isinstance(value, str) else hostile
    out = copy.deepcopy(value)
    holder = out
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = hostile
    return out


class _PoisonedSession:
    """A store session whose every answer is poisoned."""

    def __init__(self, inner: Any, hostile: Callable[[], Any]) -> None:
        self._inner = inner
        self._hostile = hostile

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not callable(attr) or name == "close":
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            return poison(attr(*args, **kwargs), self._hostile())

        return call


class HostileRuntime(ReferenceRuntime):
    """Every capability of the reference, every output poisoned with `HOSTILE[kind]` (or each kind in turn)."""

    def __init__(self, kind: str | None = None) -> None:
        self.name = f"hostile-{kind or 'all'}"
        self._kinds = [kind] if kind else list(HOSTILE)
        self._calls = 0

    def _value(self) -> Any:
        kind = self._kinds[self._calls % len(self._kinds)]
        self._calls += 1
        return HOSTILE[kind]()

    def _poison(self, value: Any) -> Any:
        return poison(value, self._value())

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        return self._poison(super().encode(conversation, provider))  # type: ignore[no-any-return]

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        return self._poison(super().decode(provider, status, headers, chunks, stream))  # type: ignore[no-any-return]

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return self._poison(super().repair(messages, provider, model, options))  # type: ignore[no-any-return]

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        return self._poison(super().turn(request))  # type: ignore[no-any-return]

    def load_transcript(self, path: str) -> dict[str, Any]:
        return self._poison(super().load_transcript(path))  # type: ignore[no-any-return]

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        return self._poison(super().context(request, transport))  # type: ignore[no-any-return]

    def store_session(self, backend: str, directory: str, options: dict[str, Any] | None = None) -> Any:
        return _PoisonedSession(super().store_session(backend, directory, options), self._value)


def make(kind: str | None = None) -> HostileRuntime:
    """The factory `conformance run --runtime tests.harness.hostile:make` calls: every kind in turn."""
    return HostileRuntime(kind)
