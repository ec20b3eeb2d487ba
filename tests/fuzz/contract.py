"""The fuzzing contract: every input gives a normalized outcome or a typed error
(`ConformanceError`), never another exception, in time at most linear in the input's size.

`fuzz(ci=N, long=M)` sets how many inputs a target gets: `N` (derandomized) normally, `M` under
``--hypothesis-profile=fuzz`` (or ``FUZZ_EXAMPLES`` with that profile). `Tally` counts per target and, with ``FUZZ_STATS`` set, appends the
figures (inputs, typed errors, slowest input, peak RSS) as one JSON line when the test ends.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings

from conformance.exceptions import ConformanceError

F = TypeVar("F", bound=Callable[..., Any])

LINEAR_BUDGET_S = 0.5
"""Fixed allowance per input (interpreter noise on a shared machine)."""
PER_BYTE_S = 20e-6
"""Allowance per input byte: 20 µs, about 100 times what the decoders need."""


def long_run() -> bool:
    return settings.get_current_profile_name() == "fuzz"


def fuzz(*, ci: int, long: int) -> Callable[[F], F]:
    if long_run():
        long = int(os.environ.get("FUZZ_EXAMPLES", long))
        return settings(max_examples=long, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    return settings(
        max_examples=ci,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


@dataclass
class Tally:
    target: str
    inputs: int = 0
    typed: int = 0
    outcomes: int = 0
    bytes: int = 0
    slowest_s: float = 0.0
    slowest_size: int = 0
    over_budget: list[tuple[int, float]] = field(default_factory=list)
    retimed: int = 0

    def call(self, size: int, fn: Callable[[], object]) -> None:
        """Run one input of `size` bytes; a `ConformanceError` counts as typed (its message must be
        one line), any other exception propagates (hypothesis shrinks it and the test fails). An
        input over the time budget is timed twice more and the fastest run counts, so a pause of
        the machine is not taken for super-linear work."""
        self.inputs += 1
        self.bytes += size
        elapsed = self._timed(fn, count=True)
        if self._over(elapsed, size):
            self.retimed += 1
            elapsed = min(elapsed, self._timed(fn), self._timed(fn))
        if elapsed > self.slowest_s:
            self.slowest_s, self.slowest_size = elapsed, size
        if self._over(elapsed, size):
            self.over_budget.append((size, elapsed))
            raise AssertionError(f"{elapsed:.3f} s for {size} bytes (three runs)")

    @staticmethod
    def _over(elapsed: float, size: int) -> bool:
        return elapsed > LINEAR_BUDGET_S + PER_BYTE_S * size

    def _timed(self, fn: Callable[[], object], *, count: bool = False) -> float:
        start = time.perf_counter()
        try:
            fn()
            if count:
                self.outcomes += 1
        except ConformanceError as exc:
            if count:
                self.typed += 1
            message = str(exc).strip()
            if not message or "\n" in message:
                raise AssertionError(f"a typed error must be one line: {exc!r}") from exc
        return time.perf_counter() - start

    def report(self) -> None:
        path = os.environ.get("FUZZ_STATS")
        if not path:
            return
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        row = {
            "target": self.target,
            "inputs": self.inputs,
            "outcomes": self.outcomes,
            "typed": self.typed,
            "untyped": 0,
            "bytes": self.bytes,
            "slowest_s": round(self.slowest_s, 4),
            "slowest_size": self.slowest_size,
            "over_budget": len(self.over_budget),
            "retimed": self.retimed,
            "peak_rss_mib": round(peak_mib, 1),
            "profile": settings.get_current_profile_name(),
        }
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
