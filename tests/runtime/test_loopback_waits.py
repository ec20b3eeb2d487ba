"""Which waits of a runtime program the check's clock records: those it says it made, if they fit the
gaps; else the gaps less its own work where the system tells it (Linux), or whole where it does not."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from conformance.harness import HarnessContext, run_all
from conformance.harness.checks.retry import GAP_TOLERANCE_S, wait_problems
from conformance.runtime import loopback
from conformance.runtime.loopback import MIN_WAIT_S, Busy, busy_seconds, fit_waits, gap_wait
from conformance.runtime.process import ProcessRuntime
from conformance.scenarios import load_scenarios


def test_waits_said_in_order_that_fit_the_gaps_are_kept() -> None:
    assert fit_waits([1.0, 2.0], [1.01, 0.1, 2.0]) == [1.0, 2.0]
    assert fit_waits([30.0], [0.2, 29.99]) == [30.0]  # clock granularity
    assert fit_waits([], [1.4]) == []  # a gap the program says it worked through


def test_a_wait_longer_than_every_gap_left_is_not_believed() -> None:
    assert fit_waits([3.0], [1.0, 2.0]) is None
    assert fit_waits([2.0, 1.0], [1.0, 2.0]) is None  # out of order
    assert fit_waits([1.0], []) is None


def test_where_the_system_tells_busy_time_a_gap_less_the_programs_work_is_its_wait() -> None:
    assert busy_seconds(os.getpid()) is not None  # Linux: /proc
    assert gap_wait(2.0, Busy(1.0, 0.0), Busy(1.1, 0.05)) == pytest.approx(1.9)  # 0.1 s run, the rest a wait
    assert gap_wait(1.0, Busy(1.0, 0.0), Busy(1.5, 0.4)) is None  # the program ran and queued through it
    assert gap_wait(0.2, Busy(1.0, 0.0), Busy(1.0, 0.0)) is None  # too short to be a wait


def test_threads_that_run_beside_a_sleep_are_not_taken_off_it() -> None:
    before = Busy(1.0, 2.0, (("7/7", 0.6, 1.0), ("7/8", 0.4, 1.0)))
    # 30 ms of work on the main thread, 70 ms of a GC thread that also queued 0.5 s for a CPU
    after = Busy(1.1, 2.52, (("7/7", 0.63, 1.02), ("7/8", 0.47, 1.5), ("7/9", 0.0, 0.0)))
    assert gap_wait(30.1, before, after) == pytest.approx(30.03)  # the busiest task: 70 ms
    assert gap_wait(0.9, before, after) == pytest.approx(0.83)  # its own queueing counted, not all tasks summed


def test_without_cpu_accounting_a_gap_is_a_wait_whole_from_min_wait_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(loopback, "PROC", tmp_path / "no-proc")  # as on macOS or Windows
    assert busy_seconds(os.getpid()) is None
    assert gap_wait(1.0, None, None) == 1.0  # busy time unknown: taken as none
    assert gap_wait(MIN_WAIT_S, None, None) == MIN_WAIT_S
    assert gap_wait(MIN_WAIT_S - 0.01, None, None) is None


ADAPTER = f"{sys.executable} {Path(__file__).with_name('oop_reference.py')}"
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("silent", [False, True], ids=["waits-said", "waits-unsaid"])
def test_retry_rows_are_judged_alike_without_cpu_accounting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, silent: bool
) -> None:
    monkeypatch.setattr(loopback, "PROC", tmp_path / "no-proc")
    if silent:
        monkeypatch.setenv("SILENT_WAITS", "1")
    ids = {"retry_overloaded_backoff", "retry_auth_rotation", "retry_never_invalid_request"}
    scenarios = [s for s in load_scenarios(ROOT / "scenarios") if s.id in ids]
    proc = ProcessRuntime(ADAPTER)
    try:
        ctx = HarnessContext(root=ROOT, runtime=proc, runtime_name="r")
        got = {r.scenario: r.verdict for r in run_all(scenarios, ["openai"], ctx, jobs=3)}
    finally:
        proc.close()
    assert got == dict.fromkeys(ids, "pass")


def test_a_measured_wait_is_judged_within_the_measurements_slack() -> None:
    hinted = [(30.0, "rate_limited")]
    assert wait_problems([29.96], hinted)  # on the check's own clock, 40 ms short is short
    assert wait_problems([29.96], hinted, slack=GAP_TOLERANCE_S) == []  # measured out of process: within slack
    assert wait_problems([29.5], hinted, slack=GAP_TOLERANCE_S)
