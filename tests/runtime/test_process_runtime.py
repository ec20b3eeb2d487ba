"""The out-of-process reference adapter earns the in-process reference's verdicts on every row.

Every check of the matrix (decode, encode, repair, retry, context, store, transcript, generated,
handoff) runs through the JSON-lines protocol on one provider of each dialect (OpenAI Chat
Completions, Anthropic, Gemini, Ollama, OpenAI Responses): the other columns reuse these dialects'
codecs with profile data, and a whole run of all twenty takes minutes of real waits (retry hints
up to 30 s), so `conformance run --runtime-cmd` over every provider is measured outside the suite.
Every row of each dialect runs in the full step (`pytest -m full`); `pytest` runs a fixed sample of
each dialect: the first rows (by id) of every check."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.runtime.process import ProcessRuntime
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = f"{sys.executable} {Path(__file__).with_name('oop_reference.py')}"
ONE_PER_DIALECT = ["openai", "anthropic", "gemini", "ollama", "openai_responses"]


SAMPLE_PER_CHECK = 2


def _results(
    runtime: object, provider: str, jobs: int = 1, scenarios: list[Scenario] | None = None
) -> dict[str, ScenarioResult]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name="r")
    rows = load_scenarios(ROOT / "scenarios") if scenarios is None else scenarios
    return {r.scenario: r for r in run_all(rows, [provider], ctx, jobs=jobs)}


def _verdicts(
    runtime: object, provider: str, jobs: int = 1, scenarios: list[Scenario] | None = None
) -> dict[str, tuple[str, str | None]]:
    return {s: (r.verdict, r.fail_kind) for s, r in _results(runtime, provider, jobs, scenarios).items()}


def _sample() -> list[Scenario]:
    """The first `SAMPLE_PER_CHECK` rows (by id) of every check: a fixed sample, the same every run."""
    by_check: dict[str, list[Scenario]] = {}
    for scenario in sorted(load_scenarios(ROOT / "scenarios"), key=lambda s: s.id):
        by_check.setdefault(scenario.check, []).append(scenario)
    return [s for check in sorted(by_check) for s in by_check[check][:SAMPLE_PER_CHECK]]


def _out_of_process_matches(provider: str, scenarios: list[Scenario] | None) -> None:
    proc = ProcessRuntime(ADAPTER)
    try:
        assert proc.name == "reference-oop"
        results = _results(proc, provider, jobs=2, scenarios=scenarios)
    finally:
        proc.close()
    got = {s: (r.verdict, r.fail_kind) for s, r in results.items()}
    want = _verdicts(ReferenceRuntime(), provider, scenarios=scenarios)
    differ = {s: (got.get(s), v) for s, v in want.items() if got.get(s) != v}
    # the out-of-process reason and traceback say why a row differs
    why = {s: (results[s].reason, results[s].traceback) for s in differ if s in results}
    assert differ == {}, why
    assert {v for v, _ in want.values()} >= {"pass", "unsupported"}


@pytest.mark.parametrize("provider", ONE_PER_DIALECT)
def test_out_of_process_reference_matches_in_process_on_every_row(provider: str) -> None:
    _out_of_process_matches(provider, None)


Verdicts = dict[tuple[str, str], tuple[str, str | None]]


@pytest.fixture(scope="module")
def sample_runs() -> tuple[Verdicts, Verdicts]:
    """The sample on every dialect's column: one out-of-process run (two programs), and in process."""
    sample = _sample()
    assert {s.check for s in sample} == {s.check for s in load_scenarios(ROOT / "scenarios")}

    def verdicts(runtime: object, jobs: int) -> Verdicts:
        ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name="r")
        results = run_all(sample, ONE_PER_DIALECT, ctx, jobs=jobs)
        return {(r.provider, r.scenario): (r.verdict, r.fail_kind) for r in results}

    proc = ProcessRuntime(ADAPTER)
    try:
        assert proc.name == "reference-oop"
        got = verdicts(proc, jobs=2)
    finally:
        proc.close()
    return got, verdicts(ReferenceRuntime(), jobs=1)


@pytest.mark.parametrize("provider", ONE_PER_DIALECT)
def test_out_of_process_reference_matches_in_process_on_a_sample_of_every_check(
    provider: str, sample_runs: tuple[Verdicts, Verdicts]
) -> None:
    got_all, want_all = sample_runs
    got = {s: v for (p, s), v in got_all.items() if p == provider}
    want = {s: v for (p, s), v in want_all.items() if p == provider}
    assert want
    assert {s: (got.get(s), v) for s, v in want.items() if got.get(s) != v} == {}
    assert {v for v, _ in want.values()} >= {"pass", "unsupported"}


def test_a_parallel_run_starts_as_many_programs_as_jobs() -> None:
    scenarios = [s for s in load_scenarios(ROOT / "scenarios") if s.check == "decode"]
    proc = ProcessRuntime(ADAPTER)
    try:
        ctx = HarnessContext(root=ROOT, runtime=proc, runtime_name="r")
        results = run_all(scenarios, ["openai", "anthropic"], ctx, jobs=3)
        assert proc.pool.started <= 3
    finally:
        proc.close()
    assert all(r.verdict != "error" for r in results)


def test_out_of_process_fallback_reaches_the_fallback_provider_at_a_loopback_port_of_its_own() -> None:
    """The fallback provider's base URL is moved to a loopback port as the provider's is: the program
    falls back there, and the row reads as in process."""
    rows = [s for s in load_scenarios(ROOT / "scenarios") if s.feature == "provider_fallback"]
    assert {s.id for s in rows} == {"retry_provider_fallback", "retry_no_fallback_on_invalid_request"}
    proc = ProcessRuntime(ADAPTER)
    try:
        got = _verdicts(proc, "openai", scenarios=rows)
    finally:
        proc.close()
    assert got == _verdicts(ReferenceRuntime(), "openai", scenarios=rows)
    assert {v for v, _ in got.values()} == {"pass"}
