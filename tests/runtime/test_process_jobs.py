"""`--jobs N` is the most runtime programs alive at once, for every kind of row (timed retry rows
included), and the rows that wait out provider hints are handed out first, longest hint first."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from conformance.harness import HarnessContext, run_all
from conformance.harness.run import Lanes, hinted_wait
from conformance.runtime.process import ProcessRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = f"{sys.executable} {Path(__file__).with_name('oop_reference.py')}"
RETRIES = {"retry_attempt_cap", "retry_overloaded_backoff", "retry_never_invalid_request", "retry_compress_once"}


def test_no_more_programs_than_jobs_are_alive_with_retry_rows_among_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LIVE_DIR", str(tmp_path))
    scenarios = [s for s in load_scenarios(ROOT / "scenarios") if s.id in RETRIES or s.check in ("decode", "repair")]
    assert {s.id for s in scenarios} >= RETRIES
    proc = ProcessRuntime(ADAPTER)
    try:
        ctx = HarnessContext(root=ROOT, runtime=proc, runtime_name="r")
        results = run_all(scenarios, ["openai"], ctx, jobs=3)
        peak = proc.pool.peak
    finally:
        proc.close()
    assert all(r.verdict != "error" for r in results), [r.reason for r in results if r.verdict == "error"]
    seen = [int(p.read_text()) for p in tmp_path.glob("peak-*")]
    assert seen and max(seen) <= 3 and peak <= 3
    assert not [p for p in tmp_path.iterdir() if p.name.isdigit()]  # every program ended


def _drain(lanes: Lanes, threads: int) -> list[tuple[int, bool]]:
    """The order rows are taken in by `threads` threads that each finish a row before taking the next."""
    taken: list[tuple[int, bool]] = []
    lock = threading.Lock()

    def lane() -> None:
        while (task := lanes.next()) is not None:
            with lock:
                taken.append(task)
            lanes.done(task[1])

    workers = [threading.Thread(target=lane) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=10)
    assert not any(w.is_alive() for w in workers)
    return taken


def test_lanes_hand_out_every_row_once_and_keep_computing_within_its_limit() -> None:
    lanes = Lanes(timed=[10, 11, 12], rest=list(range(8)), jobs=4, computing=2)
    taken = _drain(lanes, 4)
    assert sorted(i for i, _ in taken) == [*range(8), 10, 11, 12]
    assert {i for i, c in taken if not c} == {10, 11, 12}
    assert [i for i, c in taken if not c] == [10, 11, 12]  # in the order given: longest hint first


def test_one_job_computes_then_waits_through_one_lane() -> None:
    taken = _drain(Lanes(timed=[5], rest=[0, 1], jobs=1, computing=2), 1)
    assert [i for i, _ in taken] == [0, 1, 5]


def test_the_computing_limit_leaves_a_thread_for_the_timed_rows() -> None:
    lanes = Lanes(timed=[9], rest=[0, 1, 2], jobs=2, computing=2)
    first = lanes.next()
    second = lanes.next()  # one computes; the other thread takes the timed row, not a second computing one
    assert first == (0, True) and second == (9, False)
    third = lanes.next()  # no timed row left: both threads may compute
    assert third == (1, True)


def test_a_rows_hinted_wait_is_read_from_its_recording() -> None:
    by_id = {s.id: s for s in load_scenarios(ROOT / "scenarios")}
    assert hinted_wait(ROOT, by_id["retry_429_retry_after"], "openai") == 30.0
    assert hinted_wait(ROOT, by_id["retry_attempt_cap"], "openai") == 0.0
