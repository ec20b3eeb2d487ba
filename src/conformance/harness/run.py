"""Run scenarios × providers and build the matrix."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from conformance import __version__
from conformance.exceptions import CassetteError
from conformance.harness.checks import run_check
from conformance.harness.context import HarnessContext
from conformance.harness.parallel import can_fork, run_parallel
from conformance.replay.cassette import cassette_evidence, cassette_meta
from conformance.report.backing import bundled_backing
from conformance.report.matrix import (
    VERDICTS,
    Cell,
    FeatureRow,
    Matrix,
    Provenance,
    ScenarioResult,
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
"""Checks whose waits pass in real time when the runtime is another process: run concurrently."""

CONCURRENT_TIMED = 8
"""At most this many timed checks at once (each with a program of its own, which mostly waits)."""

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
    with a program of its own, and the timed checks meanwhile in up to `CONCURRENT_TIMED` more, so a
    run with 30 s hints lasts about one hint per `CONCURRENT_TIMED` of them rather than their sum.
    Threads, not forked workers: programs started from a forked process whose threads hold the
    pipes would inherit them."""
    timed = [i for i, (s, _) in enumerate(pairs) if s.check in TIMED_CHECKS]
    chosen = set(timed)
    rest = [i for i in range(len(pairs)) if i not in chosen]
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

    workers = max(1, min(jobs, len(rest)))
    with (
        ThreadPoolExecutor(max_workers=max(1, min(CONCURRENT_TIMED, len(timed)))) as waiting,
        ThreadPoolExecutor(max_workers=workers) as working,
        fewer_collections(),
    ):
        futures = [waiting.submit(one, i) for i in timed] + [working.submit(one, i) for i in rest]
        for future in futures:
            future.result()
    return [out[i] for i in range(len(pairs))]


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
) -> Matrix:
    """The matrix of a run: one cell per feature × provider with results, its verdict by `cell_verdict`."""
    used = {r.feature for r in results}
    features = [FeatureRow(id=f.id, group=f.group, title=f.title) for f in all_features() if f.id in used]
    by_cell: dict[tuple[str, str], list[ScenarioResult]] = {}
    for r in results:
        by_cell.setdefault((r.feature, r.provider), []).append(r)
    cells: list[Cell] = []
    backing = bundled_backing()
    for feature in features:
        for provider in providers:
            mine = by_cell.get((feature.id, provider), [])
            if not mine:
                continue
            counts = {v: sum(1 for r in mine if r.verdict == v) for v in VERDICTS}
            cells.append(
                Cell(
                    provider=provider,
                    feature=feature.id,
                    verdict=cell_verdict(mine),
                    counts={k: v for k, v in counts.items() if v},
                    results=mine,
                    real=backing.get((provider, feature.id)),
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
        declaration=ctx.declaration.to_json() if ctx.declaration_given else None,
    )
