"""Run scenarios × providers and build the matrix."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from conformance import __version__
from conformance.exceptions import CassetteError
from conformance.harness.checks import run_check
from conformance.harness.checks.generated import draw_ahead
from conformance.harness.context import HarnessContext
from conformance.harness.parallel import can_fork, computing_programs, run_parallel
from conformance.harness.real import CellTraffic, RealResult, tally
from conformance.jsonvalue import safe
from conformance.replay.cassette import cassette_evidence, cassette_meta, load_cassette
from conformance.report.backing import bundled_backing
from conformance.report.matrix import (
    VERDICTS,
    Cell,
    FeatureRow,
    Matrix,
    Provenance,
    RealBacking,
    ScenarioResult,
    Verdict,
    cell_verdict,
)
from conformance.scenarios import Scenario, all_features


def run_all(
    scenarios: Iterable[Scenario],
    providers: list[str],
    ctx: HarnessContext,
    *,
    on_result: Callable[[ScenarioResult], None] | None = None,
    on_start: Callable[[Scenario, str], None] | None = None,
    jobs: int = 1,
) -> list[ScenarioResult]:
    """Every scenario × provider, results in the order given (scenario by scenario).

    `jobs` > 1 runs the checks in that many forked workers where the platform forks
    (`harness.parallel`); `on_start` is then not called, as checks start in other processes."""
    pairs = [(scenario, provider) for scenario in scenarios for provider in providers if scenario.applies(provider)]
    if getattr(ctx.runtime, "real_time", False):
        return _run_real_time(pairs, ctx, jobs=jobs, on_result=on_result, on_start=on_start)
    return _run_pairs(pairs, ctx, jobs=jobs, on_result=on_result, on_start=on_start)


def _run_pairs(
    pairs: list[tuple[Scenario, str]],
    ctx: HarnessContext,
    *,
    on_result: Callable[[ScenarioResult], None] | None = None,
    on_start: Callable[[Scenario, str], None] | None = None,
    jobs: int = 1,
) -> list[ScenarioResult]:
    with fewer_collections():
        if jobs > 1 and len(pairs) > 1 and can_fork():
            return run_parallel(pairs, ctx, min(jobs, len(pairs)), on_result=on_result)
        results: list[ScenarioResult] = []
        for scenario, provider in pairs:
            if on_start is not None:
                on_start(scenario, provider)
            res = run_check(scenario, provider, ctx)
            results.append(res)
            if on_result is not None:
                on_result(res)
        return results


TIMED_CHECKS = frozenset({"retry"})
"""Checks whose waits pass in real time when the runtime is another process: started first, longest hint first."""

ONE_AT_A_TIME = frozenset({"generated"})
"""Checks run by one thread at a time in a threaded run (hypothesis' search is not thread-safe)."""


def _run_real_time(
    pairs: list[tuple[Scenario, str]],
    ctx: HarnessContext,
    *,
    jobs: int = 1,
    on_result: Callable[[ScenarioResult], None] | None = None,
    on_start: Callable[[Scenario, str], None] | None = None,
) -> list[ScenarioResult]:
    """A runtime whose waits are real (another process): the checks run in `jobs` threads, each
    with a program of its own, so `jobs` is the most programs alive at once (the runtime's pool is
    held to it too). `Lanes` hands the rows out: the timed ones (waits after a provider's hint)
    longest hint first, the others to at most `computing_programs()` threads at once, one thread
    kept for the timed rows while any are left; so a run whose longest hint is 30 s lasts about 30 s
    when its waits fit in the threads beside the computing ones. Threads, not forked workers:
    programs started from a forked process whose threads hold the pipes would inherit them."""
    limit = getattr(ctx.runtime, "limit_programs", None)
    if callable(limit):
        limit(jobs)
    draw_ahead([s for s, _ in pairs], ctx)
    timed = [i for i, (s, _) in enumerate(pairs) if s.check in TIMED_CHECKS]
    timed.sort(key=lambda i: -hinted_wait(ctx.root, *pairs[i]))
    chosen = set(timed)
    lanes = Lanes(timed, [i for i in range(len(pairs)) if i not in chosen], jobs, computing_programs())
    out: dict[int, ScenarioResult] = {}
    lock, serial = threading.Lock(), threading.Lock()

    def one(i: int) -> None:
        if on_start is not None:
            with lock:
                on_start(*pairs[i])
        with serial if pairs[i][0].check in ONE_AT_A_TIME else contextlib.nullcontext():
            res = run_check(*pairs[i], ctx)
        with lock:
            out[i] = res
            if on_result is not None:
                on_result(res)

    def lane() -> None:
        while (task := lanes.next()) is not None:
            i, computing = task
            try:
                one(i)
            finally:
                lanes.done(computing)

    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(pairs)))) as threads, fewer_collections():
        for future in [threads.submit(lane) for _ in range(max(1, min(jobs, len(pairs))))]:
            future.result()
    return [out[i] for i in range(len(pairs))]


class Lanes:
    """The rows of a real-time run, handed to its threads: a computing row while fewer than
    `computing` threads compute (fewer than `jobs - 1` while timed rows are left, so one thread
    always serves them), else the timed row with the longest hint; a thread with neither to take
    waits for a computing slot."""

    def __init__(self, timed: list[int], rest: list[int], jobs: int, computing: int) -> None:
        self._timed, self._rest = deque(timed), deque(rest)
        self._jobs, self._computing, self._busy = jobs, computing, 0
        self._cond = threading.Condition()

    def _limit(self) -> int:
        if self._timed and self._jobs > 1:
            return max(1, min(self._computing, self._jobs - 1))
        return max(1, min(self._computing, self._jobs))

    def next(self) -> tuple[int, bool] | None:
        """(row, whether it computes), or None when no row is left."""
        with self._cond:
            while True:
                if self._rest and self._busy < self._limit():
                    self._busy += 1
                    return self._rest.popleft(), True
                if self._timed:
                    i = self._timed.popleft()
                    if not self._timed:
                        self._cond.notify_all()  # the computing limit rises
                    return i, False
                if not self._rest:
                    return None
                self._cond.wait()

    def done(self, computing: bool) -> None:
        if computing:
            with self._cond:
                self._busy -= 1
                self._cond.notify_all()


def hinted_wait(root: Path, scenario: Scenario, provider: str) -> float:
    """Seconds of the waits a row's cassette asks for in `retry-after` (or `retry-after-ms`) headers:
    how long its row may wait, to start the longest first."""
    path = scenario.cassette_path(provider, root)
    try:
        interactions = load_cassette(path).interactions if path.is_file() else []
    except CassetteError:
        return 0.0
    total = 0.0
    for it in interactions:
        headers = {k.lower(): v for k, v in it.response.flat_headers().items()}
        with contextlib.suppress(ValueError):
            if "retry-after-ms" in headers:
                total += float(headers["retry-after-ms"]) / 1000
            elif "retry-after" in headers:
                total += float(headers["retry-after"])
    return total


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the block with the cyclic garbage collector started less often (restored after).

    A run keeps thousands of parsed files alive while each check allocates and drops many small
    objects: at the default thresholds (700 allocations) the collector walks the live files over
    and over, which costs about a tenth of a run at 1× and grows with the project."""
    before = gc.get_threshold()
    gc.set_threshold(50_000, 20, 20)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _provenance(results: list[ScenarioResult], providers: list[str], ctx: HarnessContext) -> list[Provenance]:
    out: list[Provenance] = []
    for provider in providers:
        paths = sorted({r.cassette for r in results if r.provider == provider and r.cassette})
        recorded: set[str] = set()
        authored: set[str] = set()
        models: set[str] = set()
        evidence: dict[str, int] = {}
        for rel in paths:
            try:
                meta = cassette_meta(ctx.root / rel)
            except CassetteError:
                continue
            kind = cassette_evidence(meta)
            evidence[kind] = evidence.get(kind, 0) + 1
            if meta.get("recorded") and kind == "recorded":  # dates of live recordings only
                recorded.add(str(meta["recorded"]))
            if meta.get("authored"):
                authored.add(str(meta["authored"]))
            if meta.get("model"):
                models.add(str(meta["model"]))
        out.append(
            Provenance(
                provider=provider,
                cassettes=len(paths),
                recorded=sorted(recorded),
                authored=sorted(authored),
                evidence=evidence,
                models=sorted(models),
            )
        )
    return out


def build_matrix(
    results: list[ScenarioResult],
    providers: list[str],
    ctx: HarnessContext,
    *,
    scenario_dir: Path,
    generated_at: datetime | None = None,
    real: list[RealResult] | None = None,
) -> Matrix:
    """The matrix of a run: one cell per feature × provider with results, its verdict by `cell_verdict`;
    with `real` (the run's judged real calls, `harness.real`), each cell's real traffic, a failing
    or erring call turning the cell so."""
    used = {r.feature for r in results}
    features = [FeatureRow(id=f.id, group=f.group, title=f.title) for f in all_features() if f.id in used]
    by_cell: dict[tuple[str, str], list[ScenarioResult]] = {}
    for r in results:
        by_cell.setdefault((r.feature, r.provider), []).append(r)
    cells: list[Cell] = []
    backing = bundled_backing()
    traffic, columns = tally(real, providers, ctx) if real is not None else ({}, None)
    for feature in features:
        for provider in providers:
            mine = by_cell.get((feature.id, provider), [])
            if not mine:
                continue
            counts = {v: sum(1 for r in mine if r.verdict == v) for v in VERDICTS}
            real_backing, verdict = _with_traffic(
                backing.get((provider, feature.id)), traffic.get((provider, feature.id)), cell_verdict(mine)
            )
            cells.append(
                Cell(
                    provider=provider,
                    feature=feature.id,
                    verdict=verdict,
                    counts={k: v for k, v in counts.items() if v},
                    results=mine,
                    real=real_backing,
                )
            )
    totals = {v: sum(1 for c in cells if c.verdict == v) for v in VERDICTS}
    return Matrix(
        harness_version=__version__,
        runtime=ctx.runtime_name,
        generated_at=(generated_at or datetime.now(UTC)).isoformat(timespec="seconds"),
        cassette_dir=ctx.rel(ctx.root / "cassettes"),
        scenario_dir=ctx.rel(scenario_dir),
        providers=providers,
        features=features,
        cells=cells,
        counts=totals,
        provenance=_provenance(results, providers, ctx),
        declaration=safe(ctx.declaration.to_json(), shorten=True) if ctx.declaration_given else None,
        real_traffic=columns,
    )


def _with_traffic(
    backing: RealBacking | None, traffic: CellTraffic | None, verdict: Verdict
) -> tuple[RealBacking | None, Verdict]:
    """A cell's backing with its real traffic, and its verdict: `fail` (or `error`) when a real
    call failed (or erred) there, the strongest evidence there is."""
    if traffic is None:
        return backing, verdict
    red = traffic.traffic.red
    if red is not None and verdict != "error":
        verdict = red
    if backing is None:
        return traffic.backing(), verdict
    return backing.model_copy(update={"traffic": traffic.traffic}), verdict
