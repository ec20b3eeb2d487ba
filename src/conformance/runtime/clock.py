"""Time as a parameter: the runtime never reads the clock or sleeps by itself."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class FakeClock:
    """A clock that advances only when slept on: a 30 s retry wait replays instantly."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        self.sleep_sync(seconds)

    def sleep_sync(self, seconds: float) -> None:
        """The same wait for synchronous code (an SDK's own retry loop)."""
        self.sleeps.append(seconds)
        self._now += max(seconds, 0.0)
