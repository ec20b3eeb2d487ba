"""encode_pending_tool_calls: a request is never sent with a call of the last assistant turn left
without its result (every provider that pairs calls with results answers it with a 400). The row is
judged by the request rules; each mutant turns exactly that row red, on every column where it
applies, while the reference, which answers the open call as the repair of missing results does,
stays green."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.capabilities import matrix_providers
from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import pending_mutants

ROOT = Path(__file__).resolve().parents[2]
ROW = "encode_pending_tool_calls"


@pytest.fixture(scope="module")
def rows() -> list[Scenario]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.check in ("encode", "handoff")]


def _results(runtime: object, rows: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    return {(r.scenario, r.provider): r for r in run_all(rows, matrix_providers(), ctx)}


@pytest.fixture(scope="module")
def reference(rows: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    got = _results(ReferenceRuntime(), rows)
    assert {r.verdict for r in got.values()} <= {"pass", "unsupported", "missing"}
    return got


@pytest.fixture(scope="module")
def runs(rows: list[Scenario]) -> Callable[[type], dict[tuple[str, str], ScenarioResult]]:
    """Each mutant's results, run once for the tests of this module that read them."""
    done: dict[type, dict[tuple[str, str], ScenarioResult]] = {}

    def of(mutant: type) -> dict[tuple[str, str], ScenarioResult]:
        if mutant not in done:
            done[mutant] = _results(mutant(), rows)
        return done[mutant]

    return of


def _applies(reference: dict[tuple[str, str], ScenarioResult]) -> set[tuple[str, str]]:
    return {(ROW, p) for p in matrix_providers() if reference[(ROW, p)].verdict == "pass"}


@pytest.mark.parametrize(
    ("mutant", "said"),
    [
        (pending_mutants.SendsPendingCalls, "would reject this request"),
        (pending_mutants.DropsPendingCalls, "'Heathrow'"),
    ],
    ids=lambda m: getattr(m, "__name__", m),
)
def test_each_mutant_turns_exactly_the_row_red(
    mutant: type,
    said: str,
    runs: Callable[[type], dict[tuple[str, str], ScenarioResult]],
    reference: dict[tuple[str, str], ScenarioResult],
) -> None:
    got = runs(mutant)
    changed = {key for key, res in got.items() if res.verdict != reference[key].verdict}
    assert all(got[key].verdict == "fail" and said in got[key].reason for key in changed), {
        k: got[k].reason for k in changed
    }
    applies = _applies(reference)
    assert len(applies) == 19 and changed == applies


def test_a_rejected_request_carries_the_rule_book_sources_it_breaks(
    rows: list[Scenario], runs: Callable[[type], dict[tuple[str, str], ScenarioResult]]
) -> None:
    """The rules the request breaks come with their sources: the row's rule is sourced (a `defect`
    once its wire is too), not left to the scenario."""
    from conformance.harness.classify import rule_source

    got = runs(pending_mutants.SendsPendingCalls)
    row = next(s for s in rows if s.id == ROW)
    for provider in ("openai", "anthropic", "gemini"):
        res = got[(ROW, provider)]
        failing = [f for f in res.requests if f.verdict == "fail"]
        assert failing and all(f.source for f in failing), res.requests
        assert rule_source(res, row) == " ; ".join(sorted({f.source for f in failing}))
