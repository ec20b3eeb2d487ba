"""A pytest run stopped part way writes matrix.json and index.html marked as interrupted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main

STOP_AFTER_ONE = """\
def pytest_runtest_teardown(item):
    raise KeyboardInterrupt
"""


def test_an_interrupted_run_marks_its_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path)]) == 0
    capsys.readouterr()
    (tmp_path / "stop_after_one.py").write_text(STOP_AFTER_ONE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_")) and k != "CI"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-m", "provider"]
    command += ["-p", "stop_after_one"]
    command += ["-k", "my_greeting or text_basic", "--conformance-html", "out"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == pytest.ExitCode.INTERRUPTED, done.stdout + done.stderr
    matrix = json.loads((tmp_path / "out" / "matrix.json").read_text())
    assert matrix["interrupted"] is True
    assert "interrupted" in (tmp_path / "out" / "index.html").read_text()
