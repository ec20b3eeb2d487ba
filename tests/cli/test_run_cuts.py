"""`conformance run` in a user's folder: Ctrl-C stops it with a message, no `.hypothesis/` is left
behind, and `--show-diff` lines stay whole in a pipe."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance.cli import main


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_", "HYPOTHESIS_"))}
    env.pop("CI", None)
    return env


def test_run_leaves_no_hypothesis_folder(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "conformance.cli", "run", "--scenario", "generated_rechunk"]
    command += ["--provider", "openai", "--no-real", "--no-html", "--no-progress", "-j", "1"]
    done = subprocess.run(command, cwd=tmp_path, env=_env(), capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert "generated" in done.stdout
    assert not (tmp_path / ".hypothesis").exists()


def _wait_for_workers(pid: int, jobs: int) -> None:
    """Until `pid` has forked its `jobs` workers and they have been checking a moment (Linux reads
    `/proc/<pid>/task/*/children`); elsewhere, 4 s."""
    tasks = Path(f"/proc/{pid}/task")
    if not tasks.is_dir():
        time.sleep(4)
        return
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        kids = [c for task in tasks.iterdir() for c in _read(task / "children").split()]
        if len(kids) >= jobs:
            time.sleep(0.5)
            return
        time.sleep(0.05)
    pytest.fail(f"`conformance run --jobs {jobs}` forked no {jobs} workers within 60 s")


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def test_ctrl_c_stops_the_forked_workers_with_a_message(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "conformance.cli", "run", "--no-html", "--no-progress", "--jobs", "2"]
    proc = subprocess.Popen(
        command, cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    _wait_for_workers(proc.pid, 2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err


def test_show_diff_lines_are_whole_in_a_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path)]) == 0
    long = "A greeting much longer than any terminal is wide, " * 4
    cassette = tmp_path / "conformance" / "cassettes" / "anthropic" / "my_greeting.yaml"
    cassette.write_text(cassette.read_text().replace('"text":"Hello!"', f'"text":"{long}"'))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    args = ["run", "--root", "conformance", "--runtime", "my_runtime:make", "--provider", "anthropic"]
    args += ["--scenario", "my_greeting", "--no-progress", "--no-real", "--no-html", "--show-diff", "--no-strict"]
    assert main(args) == 1
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if line.startswith("~ message.content[0].text")]
    assert len(line) > 120 and 'got "A greeting much longer than any terminal is wide, A greeting' in line
