"""The generated workflows run as written: `init --ci github` in a library with its own pytest
configuration, then each workflow's `run:` steps replayed in order (tests/cli/workflow_replay.py),
the package installed from its wheel in a fresh virtual environment, for a clean pull request, one
with a regression, one whose base is already failing, and a first one whose base has no
conformance project yet; the library's own tests still run under plain `pytest`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conformance.cli import main
from tests.cli.library import make_library
from tests.cli.workflow_replay import Job, Runner, replay

pytestmark = pytest.mark.xdist_group("wheel")  # under --dist loadgroup, one worker builds the wheel once

GREETING = "conformance/cassettes/anthropic/my_greeting.yaml"


def _project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    lib = make_library(tmp_path / "lib")
    assert main(["init", str(lib), "--ci", "github"]) == 0
    capsys.readouterr()
    return lib


def _break(project: Path) -> None:
    """The greeting's cassette answers otherwise: the scaffold's runtime decodes another text."""
    path = project / GREETING
    path.write_text(path.read_text().replace('"text":"Hello!"', '"text":"Goodbye!"'))


@pytest.fixture
def runner(tmp_path: Path, wheel: Path) -> Runner:
    return Runner.create(tmp_path / "runner-venv", wheel)


@pytest.fixture
def project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    return _project(tmp_path, capsys)


def _gate(workspace: Path, base: Path, runner: Runner) -> Job:
    workflow = workspace / ".github/workflows/conformance.yml"
    return replay(workflow, "replay", workspace, runner, event="pull_request", base=base)


def test_a_clean_pull_request_passes_with_the_reports(project: Path, tmp_path: Path, runner: Runner) -> None:
    workspace = tmp_path / "head"
    shutil.copytree(project, workspace)
    job = _gate(workspace, project, runner)
    assert job.ok, [(s.name, s.code, s.stdout[-500:], s.stderr[-500:]) for s in job.steps]
    for rel in ("reports/current/matrix.json", "reports/current/junit.xml", "reports/base/matrix.json"):
        assert (workspace / rel).is_file(), rel
    assert job.step("Release gate").code == 0
    assert "0 regressed" in job.summary
    assert "<testcase" in (workspace / "reports/current/junit.xml").read_text()
    # the library's own tests under plain `pytest`, the plugin the installed wheel's
    done = subprocess.run(
        [str(runner.bin / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=workspace,
        env=runner.env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr


def test_a_regression_fails_the_gate_with_an_annotation_on_the_scenario_file(
    project: Path, tmp_path: Path, runner: Runner
) -> None:
    workspace = tmp_path / "head"
    shutil.copytree(project, workspace)
    _break(workspace)
    job = _gate(workspace, project, runner)
    replayed = job.step("Replay the matrix")
    assert replayed.code == 0, replayed.stderr  # a failing cell does not stop the job before the gate
    gate = job.step("Release gate")
    assert gate.code == 1, gate.stdout + gate.stderr
    assert "::error file=conformance/scenarios/my_project/my_greeting.yaml" in gate.stdout
    assert "my_greeting[anthropic]" in job.summary
    assert "failure" in (workspace / "reports/current/junit.xml").read_text()


def test_a_result_already_failing_on_the_base_is_reported_not_fatal(
    project: Path, tmp_path: Path, runner: Runner
) -> None:
    _break(project)
    workspace = tmp_path / "head"
    shutil.copytree(project, workspace)
    job = _gate(workspace, project, runner)
    gate = job.step("Release gate")
    assert gate.code == 0, gate.stdout + gate.stderr
    assert "::error" not in gate.stdout
    assert "Already failing on the base" in job.summary


def test_a_first_pull_request_without_a_base_passes_with_a_notice(
    project: Path, tmp_path: Path, runner: Runner
) -> None:
    base = make_library(tmp_path / "base")  # the library before conformance was added
    workspace = tmp_path / "head"
    shutil.copytree(project, workspace)
    job = _gate(workspace, base, runner)
    assert job.ok, [(s.name, s.code, s.stderr[-300:]) for s in job.steps]
    gate = job.step("Release gate")
    assert gate.code == 0 and "::notice" in gate.stdout
    assert "no conformance matrix yet" in job.summary
    assert not (workspace / "reports/base").exists()


def test_the_publish_build_writes_the_site(project: Path, runner: Runner) -> None:
    job = replay(project / ".github/workflows/publish.yml", "build", project, runner, event="push")
    assert job.ok, [(s.name, s.code, s.stderr[-300:]) for s in job.steps]
    assert (project / "site" / "index.html").is_file()


def test_the_fanout_merge_publishes_and_gates_every_run(project: Path, runner: Runner) -> None:
    job = replay(project / ".github/workflows/fanout.yml", "replay", project, runner, event="workflow_dispatch")
    assert job.ok, [(s.name, s.code, s.stderr[-300:]) for s in job.steps]
    runs = sorted(p.parent.name for p in (project / "runs").glob("*/matrix.json"))
    assert runs == ["my_runtime_make-current"]
    merged = replay(project / ".github/workflows/fanout.yml", "merge", project, runner, event="workflow_dispatch")
    gate = merged.step("One gate")
    assert gate.code == 0 and "has no baseline" in gate.stdout
    baseline = project / "conformance" / "baseline" / runs[0]
    baseline.mkdir(parents=True)
    shutil.copy(project / "runs" / runs[0] / "matrix.json", baseline / "matrix.json")
    _break(project)
    job = replay(project / ".github/workflows/fanout.yml", "replay", project, runner, event="workflow_dispatch")
    merged = replay(project / ".github/workflows/fanout.yml", "merge", project, runner, event="workflow_dispatch")
    assert merged.step("One gate").code == 1
    assert (project / "site" / "index.html").is_file()
