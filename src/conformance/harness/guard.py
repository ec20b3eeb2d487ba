"""Whatever a runtime under test returns is judged and saved, never a crash of the harness.

Checks see the runtime through `guarded`: every capability's answer passes through
`jsonvalue.safe` first (lone surrogates escaped, NaN and infinities spelled out, values nested
deeper than the parser accepts cut, objects JSON cannot hold written as their `repr`), so a wrong
value is a `fail` with its diff like any other. `safe_result` then shortens what a result keeps for
the report (very long strings and lists), so `matrix.json` is always written and always valid JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from conformance.compare import ScenarioResult
from conformance.harness.context import HarnessContext
from conformance.jsonvalue import safe
from conformance.runtime.protocol import CAPABILITIES

_SESSION_METHODS = frozenset({"apply", "tree", "fsck"})
"""Store-session methods whose answers the store check judges."""


class _Guarded:
    """The runtime under test, its capability answers made plain JSON; everything else delegated.

    Each capability's wrapper is made once and looks the runtime's method up when called: the
    same callable every time (what `runtime.protocol` caches a callable's keywords by)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._wrappers: dict[str, Callable[..., Any]] = {}

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name not in _CAPABILITY_METHODS or not callable(attr):
            return attr
        wrapper = self._wrappers.get(name)
        if wrapper is None:
            wrapper = self._wrappers[name] = _wrapper(self._inner, name)
        return wrapper


_CAPABILITY_METHODS = frozenset(CAPABILITIES.values())


def _wrapper(inner: Any, name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        answer = getattr(inner, name)(*args, **kwargs)
        return _GuardedSession(answer) if name == CAPABILITIES["store"] else safe(answer)

    # the method's own signature, read through `__wrapped__`: `runtime.protocol` gives a `decode`
    # the keywords it names (`model=`, `conversation=`), which `*args, **kwargs` would hide
    call.__wrapped__ = getattr(inner, name)  # type: ignore[attr-defined]
    return call


class _GuardedSession:
    """A store session whose answers are made plain JSON."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name in _SESSION_METHODS and callable(attr):
            return lambda *args, **kwargs: safe(attr(*args, **kwargs))
        return attr


def guarded(ctx: HarnessContext) -> HarnessContext:
    """`ctx` with its runtime behind the guard (made once per run and runtime, kept in `ctx.memo`)."""
    cached = ctx.memo.get("guarded")
    if cached is not None and cached[0] is ctx.runtime:
        return cached[1]  # type: ignore[no-any-return]
    inner = ctx.runtime
    view = replace(ctx, runtime=_Guarded(inner))
    ctx.memo["guarded"] = (inner, view)
    return view


def safe_result(res: ScenarioResult) -> ScenarioResult:
    """`res` with every value it keeps (expected, actual, diff, request findings, reason) savable as
    JSON, long values shortened (each cut string says how long it was)."""
    res.reason = safe(res.reason, shorten=True)
    res.traceback = safe(res.traceback, shorten=True)
    res.expected = safe(res.expected, shorten=True)
    res.actual = safe(res.actual, shorten=True)
    for entry in res.diff:
        entry.path = safe(entry.path, shorten=True)
        entry.expected = safe(entry.expected, shorten=True)
        entry.actual = safe(entry.actual, shorten=True)
    res.requests = [
        finding.model_copy(
            update={
                "path": safe(finding.path, shorten=True),
                "expected": safe(finding.expected, shorten=True),
                "actual": safe(finding.actual, shorten=True),
            }
        )
        for finding in res.requests
    ]
    return res


__all__ = ["guarded", "safe_result"]
