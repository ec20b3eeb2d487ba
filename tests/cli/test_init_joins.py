"""`conformance init` joins an existing project: its settings go into the project's own pytest
configuration (never a pytest.ini shadowing it), the library's tests still run under plain
`pytest` with their markers and --strict-markers, and a bare `conformance run` reads the same
settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from tests.cli.library import make_library


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, check=False)


@pytest.fixture
def library(tmp_path: Path) -> Path:
    return make_library(tmp_path)


def test_init_adds_its_keys_to_the_pyproject_table_and_writes_no_pytest_ini(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(library)]) == 0
    out = capsys.readouterr().out
    assert not (library / "pytest.ini").exists()
    text = (library / "pyproject.toml").read_text()
    assert 'conformance_root = ["conformance"]' in text and 'conformance_runtime = "my_runtime:make"' in text
    assert text.count("[tool.pytest.ini_options]") == 1 and "--strict-markers" in text and "network:" in text
    assert "added to" in out and "pyproject.toml" in out
    done = _pytest(library)  # the library's own tests, markers and strictness as before
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    done = _pytest(library, "-m", "provider", "conformance/scenarios", "-k", "my_greeting")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_an_existing_pytest_ini_is_joined_not_replaced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n# mine\nmarkers =\n    slow: slow\n")
    assert main(["init", str(tmp_path)]) == 0
    text = (tmp_path / "pytest.ini").read_text()
    assert text.startswith("[pytest]\nconformance_root = conformance\nconformance_runtime = my_runtime:make\n# mine\n")
    assert "slow: slow" in text


def test_a_bare_run_in_the_project_runs_the_projects_roots_with_its_runtime(
    library: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(library)]) == 0
    monkeypatch.chdir(library)
    capsys.readouterr()
    args = ["run", "--provider", "anthropic", "--scenario", "my_greeting", "--no-progress", "--no-html", "--no-real"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "my_greeting" in out
    assert (
        json.loads((library / "reports" / "matrix.json").read_text())["runtime"] == "my_runtime"
    )  # named, not my_runtime:make
