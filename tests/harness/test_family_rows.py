"""The rows of bug families that used to slip through whole (usage reports merged field by field,
signatures carried to another model of the same provider): each turns red under a runtime with one
realistic bug, and only its own row among the rows of the same check, on every column where it applies, while the reference stays green."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.capabilities import matrix_providers
from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import family_mutants

ROOT = Path(__file__).resolve().parents[2]
PROVIDERS = [*matrix_providers(), "openai-compatible"]

RED_ROWS: dict[type, tuple[str, set[str]]] = {
    family_mutants.UsageLastReportWins: ("decode", {"usage_stream_partial_reports"}),
    family_mutants.SignaturesFollowTheProvider: (
        "repair",
        {"repair_other_model_thinking", "repair_other_model_signatures"},
    ),
}
"""Mutant → (the check whose rows it is run on, the rows it must turn red)."""


@pytest.fixture(scope="module")
def rows() -> dict[str, list[Scenario]]:
    checks = {check for check, _ in RED_ROWS.values()}
    scenarios = load_scenarios(ROOT / "scenarios")
    return {check: [s for s in scenarios if s.check == check] for check in checks}


def _results(runtime: object, rows: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    return {(r.scenario, r.provider): r for r in run_all(rows, PROVIDERS, ctx)}


@pytest.fixture(scope="module")
def reference(rows: dict[str, list[Scenario]]) -> dict[str, dict[tuple[str, str], ScenarioResult]]:
    out = {}
    for check, scenarios in rows.items():
        got = _results(ReferenceRuntime(), scenarios)
        bad = {k: r.reason for k, r in got.items() if r.verdict not in ("pass", "unsupported", "missing")}
        assert not bad, bad
        out[check] = got
    return out


@pytest.mark.parametrize("mutant", list(RED_ROWS), ids=lambda m: m.__name__)
def test_each_family_mutant_turns_exactly_its_row_red(
    mutant: type,
    rows: dict[str, list[Scenario]],
    reference: dict[str, dict[tuple[str, str], ScenarioResult]],
) -> None:
    check, red = RED_ROWS[mutant]
    got = _results(mutant(), rows[check])
    base = reference[check]
    changed = {key for key, res in got.items() if res.verdict != base[key].verdict}
    assert all(got[key].verdict == "fail" for key in changed), {k: got[k].reason for k in changed}
    applies = {key for key, res in base.items() if key[0] in red and res.verdict == "pass"}
    assert applies, f"no column runs {red}"
    assert changed == applies
