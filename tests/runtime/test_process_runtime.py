"""The out-of-process reference adapter earns the in-process reference's verdicts on every row.

Every check of the matrix (decode, encode, repair, retry, context, store, transcript, generated,
handoff) runs through the JSON-lines protocol on one provider of each dialect (OpenAI Chat
Completions, Anthropic, Gemini, Ollama, OpenAI Responses): the other columns reuse these dialects'
codecs with profile data, and a whole run of all twenty takes minutes of real waits (retry hints
up to 30 s), so `conformance run --runtime-cmd` over every provider is measured outside the suite."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conformance.harness import HarnessContext, run_all
from conformance.runtime.process import ProcessRuntime
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = f"{sys.executable} {Path(__file__).with_name('oop_reference.py')}"
ONE_PER_DIALECT = ["openai", "anthropic", "gemini", "ollama", "openai_responses"]


def _verdicts(runtime: object, provider: str, jobs: int = 1) -> dict[str, tuple[str, str | None]]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name="r")
    results = run_all(load_scenarios(ROOT / "scenarios"), [provider], ctx, jobs=jobs)
    return {r.scenario: (r.verdict, r.fail_kind) for r in results}


@pytest.mark.parametrize("provider", ONE_PER_DIALECT)
def test_out_of_process_reference_matches_in_process_on_every_row(provider: str) -> None:
    proc = ProcessRuntime(ADAPTER)
    try:
        assert proc.name == "reference-oop"
        got = _verdicts(proc, provider, jobs=2)
    finally:
        proc.close()
    want = _verdicts(ReferenceRuntime(), provider)
    assert {s: (got[s], v) for s, v in want.items() if got.get(s) != v} == {}
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
