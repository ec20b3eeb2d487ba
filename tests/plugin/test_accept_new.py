"""`--conformance-accept` writes a new scenario's expected form from its cassette (as snapshot tools
write a first snapshot); the next run judges against it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conformance.cli import main
from conformance.commands.scaffold import SCENARIO


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_")) and k != "CI"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-m", "provider"]
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True, env=env, check=False)


def test_accept_writes_the_expected_form_of_a_new_scenario(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path)]) == 0
    capsys.readouterr()
    root = tmp_path / "conformance"
    new = root / "scenarios" / "my_project" / "my_new.yaml"
    new.write_text(SCENARIO[: SCENARIO.index("expected:")])
    shutil.copy(root / "cassettes" / "anthropic" / "my_greeting.yaml", root / "cassettes" / "anthropic" / "my_new.yaml")
    done = _pytest(tmp_path, "-k", "my_new", "--conformance-accept", "-rs")
    assert done.returncode == 0 and "1 skipped" in done.stdout and "accepted" in done.stdout, done.stdout
    expected = yaml.safe_load(new.read_text())["expected"]
    assert expected["message"]["content"] == [{"type": "text", "text": "Hello!"}]
    assert expected["message"]["stop_reason"] == "stop"
    done = _pytest(tmp_path, "-k", "my_new")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout
