"""The out-of-process reference adapter earns the in-process reference's verdicts; faults are error rows."""

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


def _verdicts(runtime: object, providers: list[str]) -> dict[tuple[str, str], str]:
    scenarios = [s for s in load_scenarios(ROOT / "scenarios") if s.check in ("decode", "encode", "repair")]
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name="r")
    return {(r.scenario, r.provider): r.verdict for r in run_all(scenarios, providers, ctx)}


def test_out_of_process_reference_matches_in_process_on_decode_encode_repair() -> None:
    proc = ProcessRuntime(ADAPTER)
    try:
        assert proc.name == "reference-oop"
        assert _verdicts(proc, ["openai", "anthropic"]) == _verdicts(ReferenceRuntime(), ["openai", "anthropic"])
    finally:
        proc.close()


@pytest.mark.parametrize("fault", ["crash", "exit", "non-json", "wrong-id"])
def test_a_faulting_program_gives_error_rows_and_the_run_goes_on(fault: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAULT", fault)
    proc = ProcessRuntime(ADAPTER, timeout=20)
    try:
        verdicts = _verdicts(proc, ["openai"])
    finally:
        proc.close()
    errors = [k for k, v in verdicts.items() if v == "error"]
    assert errors and len(errors) < len(verdicts)
