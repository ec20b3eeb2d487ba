"""Run a few matrix rows through an example runtime, as `conformance run --runtime` would."""

from __future__ import annotations

from pathlib import Path

from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]


def rows(runtime: object, ids: set[str], providers: list[str]) -> dict[tuple[str, str], ScenarioResult]:
    scenarios = [s for s in load_scenarios(ROOT / "scenarios") if s.id in ids]
    assert {s.id for s in scenarios} == ids, "a scenario these tests name is gone"
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    return {(r.scenario, r.provider): r for r in run_all(scenarios, providers, ctx)}
