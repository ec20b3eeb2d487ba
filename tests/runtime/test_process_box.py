"""A runtime program cannot hang the harness, exhaust its memory or outlive the run: each program runs in
a process group of its own, ended whole; its output is read against limits, each breach a one-line fault
naming the limit. The limits here are small, so each hostile output is only just above one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.runtime.process import Limits, ProcessRuntime, RuntimeProcessError

PROGRAM = Path(__file__).with_name("hostile_program.py")
COMMAND = f"{sys.executable} {PROGRAM}"
KIB = 1024
SMALL = Limits(line_bytes=64 * KIB, call_bytes=128 * KIB, stderr_bytes=64 * KIB)
"""Limits small enough that a hostile output just above one is cheap to make."""
ENDS_WITHIN_S = 20.0
"""A call or a close that takes longer than this is taken as hung (the program's timeout is 3 s, or less)."""


def _marked(mark: str) -> list[int]:
    """Processes alive whose environment holds `HOSTILE_MARK=mark` (the hostile program and what it started)."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"HOSTILE_MARK={mark}".encode() in environ.read_bytes().split(b"\0"):
                state, _ = _stat(environ.with_name("stat"))
                if state != "Z":
                    found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def _gone(pgid: int) -> bool:
    """Whether no process of the process group `pgid` runs (a zombie has ended: it only waits for
    its parent, at times an init that reaps late, to collect its exit status)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, group = _stat(stat)
        except (OSError, ValueError):
            continue
        if group == pgid and state != "Z":
            return False
    return True


def _stat(path: Path) -> tuple[str, int]:
    """A process's state (`Z`: a zombie) and process group, from its `/proc/<pid>/stat`."""
    state, _ppid, group = path.read_text().rsplit(")", 1)[-1].split()[:3]
    return state, int(group)


def _wait_gone(pgid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(pgid):
            return True
        time.sleep(0.05)
    return False


def _within(seconds: float, work: Callable[[], Any]) -> Any:
    """`work()`'s value or exception, or a failure when it has not ended within `seconds` (a hang)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the test thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds:g} s: hung"
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture
def hostile(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., ProcessRuntime]]:
    """Start the hostile program in a mode; every one started is closed (and its group checked) at the end."""
    started: list[ProcessRuntime] = []
    mark = f"{os.getpid()}-{time.monotonic_ns()}"
    monkeypatch.setenv("HOSTILE_MARK", mark)

    def start(mode: str, *, size: int = 0, limits: Limits = SMALL, timeout: float = 3, **env: str) -> ProcessRuntime:
        monkeypatch.setenv("HOSTILE", mode)
        monkeypatch.setenv("SIZE", str(size))
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        proc = ProcessRuntime(COMMAND, timeout=timeout, start_timeout=30, limits=limits)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        _within(ENDS_WITHIN_S, proc.close)
    deadline = time.monotonic() + 5
    while (left := _marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, "processes of the run outlived it"


def _groups(proc: ProcessRuntime) -> list[int]:
    return [child.pgid for child in proc.pool._all]


def _fault(proc: ProcessRuntime, method: str = "decode", params: dict[str, Any] | None = None) -> str:
    with pytest.raises(RuntimeProcessError) as info:
        _within(ENDS_WITHIN_S, lambda: proc.call(method, params or {}))
    reason = str(info.value)
    assert "\n" not in reason and reason.startswith("runtime program ")
    return reason


def test_a_grandchild_holding_stdout_neither_hangs_the_call_nor_outlives_it(
    hostile: Callable[..., ProcessRuntime],
) -> None:
    proc = hostile("orphan")
    (pgid,) = _groups(proc)
    started = time.monotonic()
    reason = _fault(proc)
    assert "exited during `decode` (exit code 3)" in reason
    assert "leaving a grandchild behind" in reason
    assert time.monotonic() - started < 3  # found when the program exits, not at the call's timeout
    assert _wait_gone(pgid)


def test_closing_a_program_whose_grandchild_holds_stdout_ends_the_whole_group(
    hostile: Callable[..., ProcessRuntime],
) -> None:
    proc = hostile("orphan-alive")
    assert _within(ENDS_WITHIN_S, lambda: proc.call("decode", {})) == {}
    (pgid,) = _groups(proc)
    _within(ENDS_WITHIN_S, proc.close)
    assert _wait_gone(pgid)


def test_a_grandchild_in_a_session_of_its_own_is_ended_too(hostile: Callable[..., ProcessRuntime]) -> None:
    proc = hostile("detached")
    child = proc.pool._all[0]
    reason = _fault(proc)
    assert "exited during `decode`" in reason
    deadline = time.monotonic() + 5
    while child.descendants_left() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert child._known and not child.descendants_left()  # it was seen, and it was ended


@pytest.mark.parametrize(
    ("mode", "size", "words"),
    [
        ("stdout-flood", 0, "printed a stdout line longer than 64 KiB (the line limit) during `decode`"),
        ("big-line", 64 * KIB + 100, "printed a stdout line longer than 64 KiB (the line limit) during `decode`"),
        ("stderr-flood", 0, "printed more than 64 KiB on stderr during one call (the stderr limit)"),
        ("deep", 30_000, "answered `decode` with JSON nested deeper than 200 levels (the depth limit)"),
        ("deep", 201, "answered `decode` with JSON nested deeper than 200 levels (the depth limit)"),
    ],
)
def test_each_breach_is_a_one_line_fault_naming_the_limit(
    mode: str, size: int, words: str, hostile: Callable[..., ProcessRuntime]
) -> None:
    proc = hostile(mode, size=size)
    (pgid,) = _groups(proc)
    started = time.monotonic()
    reason = _fault(proc)
    assert words in reason
    assert time.monotonic() - started < 3  # at the breach, not at the call's timeout
    assert "\x1b" not in reason and "\u202e" not in reason  # the stderr tail is printable
    assert _wait_gone(pgid)


def test_an_answer_within_the_limits_is_read() -> None:
    os.environ["HOSTILE"] = "big-line"
    os.environ["SIZE"] = str(60 * KIB)
    try:
        proc = ProcessRuntime(COMMAND, timeout=3, limits=SMALL)
        try:
            assert len(proc.call("decode", {})["text"]) == 60 * KIB
        finally:
            proc.close()
    finally:
        del os.environ["HOSTILE"], os.environ["SIZE"]


def test_lines_printed_while_no_call_is_made_are_bounded_too(hostile: Callable[..., ProcessRuntime]) -> None:
    proc = hostile("idle-flood")
    child = proc.pool._all[0]
    deadline = time.monotonic() + 5
    while not child._breached and time.monotonic() < deadline:  # the program floods while idle
        time.sleep(0.01)
    time.sleep(0.05)  # what a reader that went on would take in the meantime
    assert child._breached and child.lines.qsize() <= SMALL.call_lines + 1  # it stopped at the lines limit
    reason = _fault(proc)
    assert "(the call limit)" in reason or "with id 0" in reason


def test_a_program_that_stops_reading_its_input_is_hung_not_the_harness(
    hostile: Callable[..., ProcessRuntime],
) -> None:
    proc = hostile("no-read", timeout=1)  # the timeout that must expire
    reason = _fault(proc, params={"chunks": ["a" * (1024 * KIB)]})  # more than a pipe holds
    assert "did not read `decode` within 1 s" in reason


def test_a_long_or_unprintable_handshake_is_shortened_and_escaped(hostile: Callable[..., ProcessRuntime]) -> None:
    roomy = Limits(line_bytes=4 * 1024 * KIB, call_bytes=8 * 1024 * KIB)
    proc = hostile("ok", limits=roomy, NAME="\u202eevil\x1b[31m", VERSION="v", PAD="1000000")
    assert len(proc.name) < 300 and "1,000,010 characters" in proc.name
    assert "\u202e" not in proc.name and "\x1b" not in proc.name and "\\u202e" in proc.name
    assert proc.version is not None and len(proc.version) < 300
    assert proc.declaration.name == proc.name


SCRIPT = """
import os, signal, sys, time
from conformance.runtime.process import ProcessRuntime
proc = ProcessRuntime(sys.argv[1], timeout=3)
print(proc.pool._all[0].pgid, flush=True)
if sys.argv[2] == "interrupt":
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(30)
"""


@pytest.mark.parametrize("how", ["interrupt", "exit"])
def test_no_program_outlives_the_harness(how: str, tmp_path: Path) -> None:
    """Ctrl-C, or an exit without closing: the programs' groups end with the harness."""
    script = tmp_path / "harness.py"
    script.write_text(textwrap.dedent(SCRIPT))
    env = {**os.environ, "HOSTILE": "orphan-alive"}
    done = subprocess.run(
        [sys.executable, str(script), COMMAND, how], env=env, capture_output=True, text=True, timeout=60
    )
    pgid = int(done.stdout.split()[0])
    assert done.returncode != 0 if how == "interrupt" else done.returncode == 0
    if how == "interrupt":
        assert "KeyboardInterrupt" in done.stderr
    alive = not _wait_gone(pgid)
    if alive:
        os.killpg(pgid, signal.SIGKILL)
    assert not alive


def test_a_huge_answer_is_judged_whole_and_saved_shortened(
    hostile: Callable[..., ProcessRuntime], tmp_path: Path
) -> None:
    from conformance.harness import HarnessContext, run_all
    from conformance.harness.run import build_matrix
    from conformance.scenarios import load_scenarios

    root = Path(__file__).resolve().parents[2]
    roomy = Limits(line_bytes=8 * 1024 * KIB, call_bytes=16 * 1024 * KIB)
    proc = hostile("big-result", size=2_000_000, limits=roomy, PROVIDERS="20000")  # 4 MB, and 1.2 MB of names
    rows = [s for s in load_scenarios(root / "scenarios") if s.id == "encode_tool_history"]
    ctx = HarnessContext(root=root, runtime=proc, runtime_name="hostile")
    results = run_all(rows, ["openai"], ctx)
    assert [r.verdict for r in results] == ["fail"]
    matrix = build_matrix(results, ["openai"], ctx, scenario_dir=root / "scenarios")
    matrix.save(tmp_path / "matrix.json")
    saved = (tmp_path / "matrix.json").read_text()
    assert len(saved) < 1024 * KIB, len(saved)  # the answer was 4 MB, the handshake 1.2 MB
    assert "2,000,000 in all]" in saved and "more items]" in saved


def test_the_harness_stays_small_and_alone_whatever_the_program_does() -> None:
    """`conformance run` against each hostile program (1 MiB answers allowed; each output just above
    that, or endless): peak memory well under 300 MB, a one-line reason, nothing left running."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "tests.runtime.measure_hostile", str(1024 * KIB)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    runs = json.loads(done.stdout[done.stdout.index("\n{") :])
    expected = {
        "stdout-flood": "(the line limit)",
        "stderr-flood": "(the stderr limit)",
        "big-line": "(the line limit)",
        "deep": "(the depth limit)",
        "orphan": "exited during",
    }
    for mode, run in runs.items():
        assert run["peak_mb"] < 300, (mode, run)
        assert run["left"] == [], (mode, run)
        assert "\n" not in run["reason"]
        if mode in expected:
            assert run["verdict"] == "error" and expected[mode] in run["reason"], (mode, run)
