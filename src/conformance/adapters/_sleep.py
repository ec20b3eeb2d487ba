"""An SDK's retry loop, waiting on the harness clock for the duration of a block."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from conformance.runtime.protocol import TurnClock


class _ClockTime:
    """A stand-in for the `time` module inside one SDK module: `sleep` waits on the harness clock."""

    def __init__(self, clock: TurnClock) -> None:
        self._clock = clock

    def sleep(self, seconds: float) -> None:
        self._clock.sleep_sync(seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


class _ClockAnyio:
    """A stand-in for `anyio` inside one SDK module: `sleep` waits on the harness clock."""

    def __init__(self, clock: TurnClock, anyio: ModuleType) -> None:
        self._clock, self._anyio = clock, anyio

    async def sleep(self, seconds: float) -> None:
        await self._clock.sleep(seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._anyio, name)


class _ClockTenacity:
    """A stand-in for `tenacity` inside one SDK module (google-genai's retry loop): its `Retrying`
    and `AsyncRetrying` wait on the harness clock."""

    def __init__(self, clock: TurnClock, tenacity: ModuleType) -> None:
        self._clock, self._tenacity = clock, tenacity

    def Retrying(self, *args: Any, **kwargs: Any) -> Any:
        return self._tenacity.Retrying(*args, sleep=self._clock.sleep_sync, **kwargs)

    def AsyncRetrying(self, *args: Any, **kwargs: Any) -> Any:
        return self._tenacity.AsyncRetrying(*args, sleep=self._clock.sleep, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tenacity, name)


_STAND_INS: dict[str, Any] = {
    "time": lambda clock, real: _ClockTime(clock),
    "anyio": _ClockAnyio,
    "tenacity": _ClockTenacity,
}


@contextlib.contextmanager
def sdk_sleeps_on(clock: TurnClock, *modules: ModuleType) -> Iterator[None]:
    """For the duration of the block, the retry loops of `modules` (an SDK's `_base_client`, or
    google-genai's `_api_client`) sleep on `clock`: the sync loop's `time.sleep`, the async loop's
    `anyio.sleep`, and tenacity's `Retrying`/`AsyncRetrying` sleeps. Restored on any exit."""
    saved = [(m, name, m.__dict__[name]) for m in modules for name in _STAND_INS if name in m.__dict__]
    try:
        for module, name, real in saved:
            setattr(module, name, _STAND_INS[name](clock, real))
        yield
    finally:
        for module, name, real in saved:
            setattr(module, name, real)
