"""The `agent` capability out of process: a `cancel` line reaches the program while its call runs,
and the loopback server sees whether the program closed the held answer (the rest of a cancelled
stream, a tool call) before it came. A program that reads the cancel and does nothing with it
turns the two cancel rows red and no other."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conformance.harness import HarnessContext, run_all
from conformance.runtime.process import ProcessRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = f"{sys.executable} {Path(__file__).with_name('oop_reference.py')}"


def _verdicts(fault: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("FAULT", fault)
    rows = [s for s in load_scenarios(ROOT / "scenarios") if s.check == "agent"]
    proc = ProcessRuntime(ADAPTER)
    try:
        ctx = HarnessContext(root=ROOT, runtime=proc, runtime_name="oop")
        return {r.scenario: r.verdict for r in run_all(rows, ["anthropic"], ctx, jobs=1)}
    finally:
        proc.close()


def test_the_program_passes_every_agent_row(monkeypatch: pytest.MonkeyPatch) -> None:
    verdicts = _verdicts("", monkeypatch)
    assert len(verdicts) == 8
    assert set(verdicts.values()) == {"pass"}, verdicts


def test_a_program_that_ignores_the_cancel_fails_the_cancel_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    verdicts = _verdicts("ignore-cancel", monkeypatch)
    assert {s for s, v in verdicts.items() if v != "pass"} == {"agent_cancel_stream", "agent_abort_tool"}, verdicts
    assert verdicts["agent_cancel_stream"] == verdicts["agent_abort_tool"] == "fail"
