"""A runtime program that misbehaves gives `error` rows with a one-line reason and its stderr tail; the
rows it answered keep their verdicts, the run goes on and says how many rows the program failed."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.runtime.process import ProcessRuntime, RuntimeProcessError
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = f"{sys.executable} {Path(__file__).with_name('oop_reference.py')}"
ROWS = 7
"""Decode rows of OpenAI a faulting program is given (a row makes one or two calls; it breaks on every third)."""
HANG_S = 1
"""The call timeout of the runs with a program that hangs: it expires on each hang (about three a
run), while a healthy decode call answers in milliseconds."""


def _scenarios() -> list[object]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.check == "decode"][:ROWS]


def _run(runtime: object) -> list[ScenarioResult]:
    return run_all(_scenarios(), ["openai"], HarnessContext(root=ROOT, runtime=runtime, runtime_name="r"))  # type: ignore[arg-type]


def _faulted(monkeypatch: pytest.MonkeyPatch, fault: str, tmp_path: Path, **kwargs: float) -> list[ScenarioResult]:
    monkeypatch.setenv("FAULT", fault)
    monkeypatch.setenv("FAULT_MARK", str(tmp_path / "mark"))
    proc = ProcessRuntime(ADAPTER, **kwargs)
    try:
        return _run(proc)
    finally:
        proc.close()


@pytest.fixture(scope="module")
def reference() -> dict[str, str]:
    return {r.scenario: r.verdict for r in _run(ReferenceRuntime())}


@pytest.fixture(scope="module")
def faulted_run(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], list[ScenarioResult]]:
    """The rows of a run with a program making `fault` (call timeout `HANG_S`), run once per module for
    every test that reads them."""
    runs: dict[str, list[ScenarioResult]] = {}

    def run(fault: str) -> list[ScenarioResult]:
        if fault not in runs:
            with pytest.MonkeyPatch.context() as monkeypatch:
                runs[fault] = _faulted(monkeypatch, fault, tmp_path_factory.mktemp("fault"), timeout=HANG_S)
        return runs[fault]

    return run


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ("crash", "exited during `"),
        ("exit", "exited during `"),
        ("non-json", "printed a line that is not JSON"),
        ("wrong-id", "with id"),
        ("hang", "` within 1 s"),
        ("exit-then-crash-at-start", "exited during `handshake`"),
        ("exit-then-unknown-capability", "declared unknown capabilities teleport"),
    ],
)
def test_a_fault_fails_the_rows_being_answered_and_no_other(
    fault: str, words: str, reference: dict[str, str], faulted_run: Callable[[str], list[ScenarioResult]]
) -> None:
    results = faulted_run(fault)
    errors = [r for r in results if r.verdict == "error"]
    assert errors, fault
    for r in errors:
        assert r.reason.startswith("runtime program ") and "\n" not in r.reason
        assert "stderr: " in r.reason or fault.endswith("capability")  # the program's last words, if it said any
    assert words in errors[-1].reason
    for r in results:
        if r.verdict != "error":
            assert r.verdict == reference[r.scenario]
    failed = [r.verdict == "error" for r in results]
    first = failed.index(True)
    assert first > 0  # rows before the fault keep their verdicts
    if fault.startswith("exit-then-"):  # once every start fails, every later row is an error
        assert all(failed[first:])
    else:  # every third call faults: the rows between are answered by a fresh program
        assert len(errors) < ROWS - first


def test_the_stderr_tail_is_in_the_reason(faulted_run: Callable[[str], list[ScenarioResult]]) -> None:
    crashed = [r for r in faulted_run("crash") if r.verdict == "error"]
    assert "RuntimeError: boom mid-run" in crashed[0].reason
    later = [r for r in faulted_run("exit-then-crash-at-start") if r.verdict == "error"]
    assert "cannot load the library" in later[-1].reason


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ("crash-at-start", "exited during `handshake` (exit code 3); stderr: cannot load the library"),
        ("unknown-capability", "declared unknown capabilities teleport"),
    ],
)
def test_a_program_that_cannot_start_is_one_line(fault: str, words: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAULT", fault)
    with pytest.raises(RuntimeProcessError, match="runtime program") as info:
        ProcessRuntime(ADAPTER)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_start_up_has_its_own_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A program slower to start (1 s) than one call may take (0.5 s) is not hung; past the start-up
    timeout it is."""
    monkeypatch.setenv("FAULT", "slow-start")
    monkeypatch.setenv("SLOW_START_S", "1")
    proc = ProcessRuntime(ADAPTER, timeout=0.5, start_timeout=120)
    proc.close()
    with pytest.raises(RuntimeProcessError, match=r"did not answer `handshake` within 0\.5 s"):
        ProcessRuntime(ADAPTER, timeout=60, start_timeout=0.5)


def test_the_run_counts_the_rows_the_program_failed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAULT", "hang")
    scenarios = [f"--scenario={s.id}" for s in _scenarios()]  # type: ignore[attr-defined]
    args = [
        "run",
        "--runtime-cmd",
        ADAPTER,
        "--runtime-timeout",
        str(HANG_S),
        "--provider",
        "openai",
        "--no-real",
        *scenarios,
    ]
    code = main([*args, "--root", str(ROOT), "--out", str(tmp_path), "--no-html", "--no-progress", "--jobs", "1"])
    out = capsys.readouterr().out
    rows = [r for c in json.loads((tmp_path / "matrix.json").read_text())["cells"] for r in c["results"]]
    errors = [r for r in rows if r["verdict"] == "error"]
    assert code == 1 and 0 < len(errors) < len(rows)
    assert f"the runtime program failed {len(errors)} row" in out
    assert all("fault hang on call" in r["reason"] for r in errors)
