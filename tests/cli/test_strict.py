"""A deleted cassette does not pass silently: `--strict` (on when CI is set) fails `run` and the
pytest item; a failing run says how to see why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main

ARGS = ["run", "--root", "conformance", "--runtime", "my_runtime:make", "--provider", "anthropic"]
ARGS += ["--scenario", "my_greeting", "--no-progress", "--no-real", "--no-html"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["init", str(tmp_path)]) == 0
    (tmp_path / "conformance" / "cassettes" / "anthropic" / "my_greeting.yaml").unlink()
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    return tmp_path


def test_strict_run_fails_on_a_missing_cassette(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert main([*ARGS, "--no-strict"]) == 0
    assert main([*ARGS, "--strict"]) == 1
    assert "strict: my_greeting[anthropic] missing: no cassette at" in capsys.readouterr().out
    monkeypatch.setenv("CI", "true")
    assert main(ARGS) == 1  # the default in CI


def _pytest(cwd: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_")) and k != "CI"}
    if ci:
        env["CI"] = "1"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    command += ["-m", "provider", "-k", "my_greeting"]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, check=False)


def test_strict_pytest_fails_the_item_instead_of_skipping(project: Path) -> None:
    done = _pytest(project, ci=False)
    assert done.returncode == 0 and "1 skipped" in done.stdout, done.stdout
    done = _pytest(project, ci=True)
    assert done.returncode == 1 and "1 failed" in done.stdout, done.stdout
    assert "no cassette at" in done.stdout


def test_a_failing_run_mentions_show_diff(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.commands.scaffold import CASSETTE

    cassette = project / "conformance" / "cassettes" / "anthropic" / "my_greeting.yaml"
    cassette.write_text(CASSETTE.replace('"text":"Hello!"', '"text":"Bye"'))
    assert main([*ARGS, "--no-strict"]) == 1
    assert "--show-diff" in capsys.readouterr().out
    assert main([*ARGS, "--no-strict", "--show-diff"]) == 1
    assert "run again with --show-diff" not in capsys.readouterr().out
