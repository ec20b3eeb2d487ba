"""The max-tokens budget rows: each turns red under a runtime with one realistic budgeting bug,
and only its own row among every encode row, on every column where it applies, while the
reference stays green."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.capabilities import matrix_providers
from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import budget_mutants

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def encode_rows() -> list[Scenario]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.check == "encode"]


def _results(runtime: object, rows: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    return {(r.scenario, r.provider): r for r in run_all(rows, matrix_providers(), ctx)}


@pytest.fixture(scope="module")
def reference(encode_rows: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    got = _results(ReferenceRuntime(), encode_rows)
    assert {r.verdict for r in got.values()} <= {"pass", "unsupported", "missing"}, {
        k: r.reason for k, r in got.items() if r.verdict not in ("pass", "unsupported", "missing")
    }
    return got


RED_ROWS = {
    budget_mutants.NoOutputClamp: {"encode_max_tokens_output_limit"},
    # an input that fills the window leaves no room: without the window clamp the request's 512 goes out
    budget_mutants.NoWindowClamp: {"encode_max_tokens_window_remainder", "encode_max_tokens_floor"},
}


@pytest.mark.parametrize("mutant", list(RED_ROWS), ids=lambda m: m.__name__)
def test_each_budget_mutant_turns_exactly_its_row_red(
    mutant: type, encode_rows: list[Scenario], reference: dict[tuple[str, str], ScenarioResult]
) -> None:
    got = _results(mutant(), encode_rows)
    changed = {key for key, res in got.items() if res.verdict != reference[key].verdict}
    assert all(got[key].verdict == "fail" for key in changed), {k: got[k].reason for k in changed}
    assert {key[0] for key in changed} == RED_ROWS[mutant]
    applies = {key for key, res in reference.items() if key[0] in RED_ROWS[mutant] and res.verdict == "pass"}
    assert changed == applies
