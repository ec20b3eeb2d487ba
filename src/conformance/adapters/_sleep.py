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


@contextlib.contextmanager
def sdk_sleeps_on(clock: TurnClock, *modules: ModuleType) -> Iterator[None]:
    """For the duration of the block, the retry loops of `modules` (an SDK's `_base_client`) sleep on
    `clock`: the sync loop's `time.sleep` and the async loop's `anyio.sleep`. Restored on any exit."""
    saved = [(m, m.__dict__.get("time"), m.__dict__.get("anyio")) for m in modules]
    try:
        for module, real_time, real_anyio in saved:
            if real_time is not None:
                module.time = _ClockTime(clock)  # type: ignore[attr-defined]
            if real_anyio is not None:
                module.anyio = _ClockAnyio(clock, real_anyio)  # type: ignore[attr-defined]
        yield
    finally:
        for module, real_time, real_anyio in saved:
            if real_time is not None:
                module.time = real_time  # type: ignore[attr-defined]
            if real_anyio is not None:
                module.anyio = real_anyio  # type: ignore[attr-defined]
