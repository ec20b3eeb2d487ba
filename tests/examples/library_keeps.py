"""What a library's own result objects hold, for the red rows of the example adapters.

A red decode row (or real call) is the library's only when the value the row expects is not in the
objects the library handed the adapter. `Recorder` catches those objects — the first argument of
each adapter's `_message` (the SDK's completion or message, pydantic-ai's `ModelResponse`) and
`_error` (the exception it raised) — and `kept` lists the expected values the adapter left out that
are in them anyway: each is a value the adapter should have read.

What counts as the library's: every field of its objects, typed or kept as an extra, and a body it
keeps as text when that text is JSON. The raw HTTP exchange an exception carries (`exc.response`,
`exc.request`) does not: those are the provider's bytes, not the library's reading of them.
Classifications (`stop_reason`, `error.kind`) are not looked up: the library's class is its answer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import traceback
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import httpx2
from pydantic import BaseModel

JUDGEMENTS = frozenset({"stop_reason", "kind", "type"})
"""Fields whose value is a classification (a block's `type` too), not data the library could hold verbatim."""

RAW = (httpx.Response, httpx.Request, httpx2.Response, httpx2.Request)


def _leaves(value: Any, out: set[Any], depth: int = 0) -> None:
    if depth > 20 or value is None or isinstance(value, (bool, *RAW)):
        return
    if isinstance(value, str):
        out.add(value)
        if value[:1] in "{[":
            with contextlib.suppress(ValueError):
                _leaves(json.loads(value), out, depth + 1)
    elif isinstance(value, int | float):
        out.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _leaves(item, out, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _leaves(item, out, depth + 1)
    elif isinstance(value, BaseModel):
        _leaves(dict(value.__dict__), out, depth + 1)
        _leaves(value.__pydantic_extra__ or {}, out, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        _leaves({f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}, out, depth + 1)
    elif isinstance(value, BaseException):
        _leaves(value.args, out, depth + 1)
        _leaves(dict(vars(value)), out, depth + 1)
        _leaves(value.__cause__, out, depth + 1)
    elif hasattr(value, "__dict__") and not isinstance(value, type | ModuleType):
        _leaves(dict(vars(value)), out, depth + 1)


def _data(value: Any, path: str, out: list[tuple[str, Any]]) -> None:
    """(path, leaf) of every data leaf under `path` (classifications left out)."""
    if path.rsplit(".", 1)[-1].split("[")[0] in JUDGEMENTS:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _data(item, f"{path}.{key}" if path else key, out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _data(item, f"{path}[{i}]", out)
    elif isinstance(value, str) and len(value) >= 3:
        out.append((path, value))
    elif isinstance(value, int | float) and not isinstance(value, bool) and abs(value) >= 10:
        out.append((path, value))  # small numbers match by chance


def at(value: Any, path: str) -> Any:
    """The value at a contract path (`message.content[0].text`, `(root)`), None where there is none."""
    if path == "(root)":
        return value
    for part in path.replace("[", ".[").split("."):
        if part.startswith("[") and isinstance(value, list):
            index = int(part[1:-1])
            value = value[index] if index < len(value) else None
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def kept(objects: list[Any], paths: list[str], expected: Any, outputs: list[Any]) -> list[tuple[str, Any]]:
    """The expected values at `paths` (a row's differences) that none of the adapter's `outputs`
    holds and the library's `objects` do."""
    library: set[Any] = set()
    _leaves(objects, library)
    given: set[Any] = set()
    _leaves(outputs, given)
    found: list[tuple[str, Any]] = []
    for path in paths:
        wanted: list[tuple[str, Any]] = []
        _data(at(expected, path), "" if path == "(root)" else path, wanted)
        found += [(where, value) for where, value in wanted if value not in given and value in library]
    return found


class Probe:
    """A runtime under test whose `decode` answers are kept (`outputs`), everything else its own."""

    def __init__(self, runtime: Any) -> None:
        self._runtime = runtime
        self.outputs: list[Any] = []
        self.raised_in: list[str] = []
        """The file of the innermost frame of each exception `decode` raised."""

    def clear(self) -> None:
        self.outputs.clear()
        self.raised_in.clear()

    def decode(self, *args: Any, **kwargs: Any) -> Any:
        try:
            out = self._runtime.decode(*args, **kwargs)
        except Exception as exc:
            self.raised_in.append(traceback.extract_tb(exc.__traceback__)[-1].filename)
            raise
        self.outputs.append(out)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)


class Recorder:
    """The objects a library hands the adapters' `_message` and `_error` while it is installed."""

    def __init__(self, *modules: ModuleType) -> None:
        self.modules = modules
        self.objects: list[Any] = []

    @contextlib.contextmanager
    def installed(self) -> Iterator[Recorder]:
        names = ("_message", "_error")
        saved = [(m, name, getattr(m, name)) for m in self.modules for name in names if hasattr(m, name)]

        def wrap(real: Any) -> Any:
            def recording(obj: Any, *args: Any, **kwargs: Any) -> Any:
                self.objects.append(obj)
                return real(obj, *args, **kwargs)

            return recording

        try:
            for module, name, real in saved:
                setattr(module, name, wrap(real))
            yield self
        finally:
            for module, name, real in saved:
                setattr(module, name, real)
