"""Scenario × provider checks spread over worker processes (`conformance run --jobs N`).

Workers are forked from the running process, so they inherit the runtime under test, the parsed
files and every registered codec, check and profile without pickling any of them; only the
results travel back. Where `fork` is not the platform's way (Windows, macOS), or one job is asked
for, the checks run in this process. The result list is in the order of the pairs given, whatever
order the workers finish in, so a matrix built from it is the same as a sequential run's.

Rows that read every provider's cassettes (`WHOLE_CORPUS_CHECKS`: `handoff`, `generated`) cost tens of milliseconds per
provider where the others cost about one, and share work across providers (every cassette
decoded once, the examples drawn once): each such scenario is one task for all its providers,
handed out first so no worker is left with a long one at the end.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from conformance.compare import ScenarioResult
from conformance.exceptions import CassetteError, WorkerCrashedError
from conformance.fileio import prime
from conformance.harness.checks import WHOLE_CORPUS_CHECKS, run_check
from conformance.harness.context import HarnessContext
from conformance.replay.cassette import cassette_meta
from conformance.scenarios import Scenario

BATCH = 16
"""Pairs per task: large enough that sending a task costs little next to running it."""

Pair = tuple[Scenario, str]
_WORK: tuple[list[Pair], HarnessContext] | None = None
"""The pairs and context of the run in progress, set before the workers fork (they read it)."""


PER_WORKER = 100
"""`auto` starts a worker per this many checks at most: forking costs more than a few checks."""


PROGRAMS = 4
"""A runtime program's run computes with one program per CPU, at most this many, at once."""

WAITING_PROGRAMS = 8
"""Programs a runtime program's run adds by default for the rows whose waits pass in real time
(retries after a provider's hint: each program mostly sleeps)."""


def cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def auto_jobs(checks: int) -> int:
    """Workers for `checks` checks: one per CPU this process may run on, fewer for a small run."""
    return max(1, min(cpus(), checks // PER_WORKER))


def computing_programs() -> int:
    """Programs computing at once in a runtime program's run: one per CPU, at most `PROGRAMS`."""
    return max(1, min(cpus(), PROGRAMS))


def program_jobs() -> int:
    """Programs alive at most in a runtime program's run (`--runtime-cmd` without `--jobs`): those
    computing, and `WAITING_PROGRAMS` more for the rows that mostly wait."""
    return computing_programs() + WAITING_PROGRAMS


def can_fork() -> bool:
    """Whether workers can be forked safely here (Linux: yes; macOS and Windows: no)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


Batch = tuple[list[tuple[int, ScenarioResult]], dict[str, dict[str, Any]]]
"""What a worker sends back: (index, result) pairs, and the `meta` of each cassette they name."""


def _run_batch(indices: list[int]) -> Batch:
    assert _WORK is not None, "the run's pairs are set before the workers fork"
    pairs, ctx = _WORK
    done = [(i, run_check(*pairs[i], ctx)) for i in indices]
    metas: dict[str, dict[str, Any]] = {}
    for _, res in done:
        if res.cassette and res.cassette not in metas:
            try:
                metas[res.cassette] = cassette_meta(ctx.root / res.cassette)
            except CassetteError:
                continue  # the result already says what is wrong with it
    return done, metas


def _batches(pairs: Sequence[Pair]) -> list[list[int]]:
    heavy: dict[str, list[int]] = {}
    light: list[int] = []
    for i, (scenario, _) in enumerate(pairs):
        if scenario.check in WHOLE_CORPUS_CHECKS:
            heavy.setdefault(scenario.id, []).append(i)
        else:
            light.append(i)
    return [*heavy.values(), *(light[k : k + BATCH] for k in range(0, len(light), BATCH))]


def _leave_interrupts_to_the_parent() -> None:
    """In a worker: Ctrl-C reaches the whole process group; the parent stops the workers."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Terminate the workers and drop the queued batches."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # the executor exposes no other handle
    for process in processes:
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def run_parallel(
    pairs: list[Pair],
    ctx: HarnessContext,
    jobs: int,
    *,
    on_result: Callable[[ScenarioResult], None] | None = None,
) -> list[ScenarioResult]:
    """Every pair checked in `jobs` forked workers; results in the order of `pairs`."""
    global _WORK
    out: list[ScenarioResult | None] = [None] * len(pairs)
    _WORK = (pairs, ctx)
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=multiprocessing.get_context("fork"), initializer=_leave_interrupts_to_the_parent
    )
    try:
        pending: set[Future[Batch]] = {pool.submit(_run_batch, batch) for batch in _batches(pairs)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                results, metas = future.result()
                for rel, meta in metas.items():  # so the report's provenance reads no cassette again
                    prime("cassette_meta", ctx.root / rel, meta)
                for i, res in results:
                    out[i] = res
                    if on_result is not None:
                        on_result(res)
        pool.shutdown()
    except KeyboardInterrupt:  # Ctrl-C: stop the workers now instead of letting them finish the queue
        _stop(pool)
        raise
    except BrokenProcessPool as exc:
        pool.shutdown(wait=False, cancel_futures=True)
        raise WorkerCrashedError(f"a worker process died: {exc}; run again with --jobs 1 to see which check") from None
    except Exception:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        _WORK = None
    return [res for res in out if res is not None]
