"""`conformance init` scaffolds a project that runs as it is, with CI workflows that lint clean."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conformance.cli import main
from tests.cli.workflow_lint import NO_ACTIONLINT, actionlint_command, lint_workflow

ROOT = Path(__file__).resolve().parents[2]

WORKFLOWS = ("conformance.yml", "record.yml", "publish.yml", "fanout.yml")


def _init(target: Path, *extra: str) -> int:
    return main(["init", str(target), *extra])


def test_init_writes_a_project_and_the_workflows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _init(tmp_path / "proj", "--ci", "github") == 0
    capsys.readouterr()
    proj = tmp_path / "proj"
    for rel in ("conformance/conformance.yaml", "pytest.ini", "my_runtime.py", "conformance/scenarios"):
        assert (proj / rel).exists(), rel
    for name in WORKFLOWS:
        assert (proj / ".github" / "workflows" / name).is_file()


def test_init_never_overwrites_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "my_runtime.py").write_text("# mine\n")
    assert _init(proj) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "my_runtime.py" in err and "--force" in err
    assert (proj / "my_runtime.py").read_text() == "# mine\n"
    assert not (proj / "pytest.ini").exists()  # nothing written at all
    assert _init(proj, "--force") == 0
    assert "def make" in (proj / "my_runtime.py").read_text()


def test_the_scaffolded_project_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    proj = tmp_path / "proj"
    assert _init(proj) == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-m",
            "provider",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-k",
            "my_greeting",
        ],
        cwd=proj,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    monkeypatch.chdir(proj)
    capsys.readouterr()
    args = [
        "run",
        "--root",
        "conformance",
        "--runtime",
        "my_runtime:make",
        "--provider",
        "anthropic",
        "--provider",
        "openai",
    ]
    assert main([*args, "--scenario", "my_greeting", "--scenario", "text_basic", "--no-progress", "--no-html"]) == 0
    out = capsys.readouterr().out
    assert "my_greeting" in out and "text" in out
    assert (
        json.loads((proj / "reports" / "matrix.json").read_text())["runtime"] == "my_runtime"
    )  # named, not my_runtime:make


def test_the_workflows_lint_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _init(tmp_path, "--ci", "github") == 0
    capsys.readouterr()
    paths = [tmp_path / ".github" / "workflows" / name for name in WORKFLOWS]
    for path in paths:
        assert lint_workflow(path) == []
    text = (tmp_path / ".github" / "workflows" / "record.yml").read_text()
    assert "--require-keys" in text and "secrets.ANTHROPIC_API_KEY" in text
    gate = (tmp_path / ".github" / "workflows" / "conformance.yml").read_text()
    assert "pull_request" in gate and "--fail-on-regression" in gate


def test_the_workflows_pin_actions_grant_per_job_and_keep_no_credentials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every action pinned by a commit, no permission granted at workflow level, each job's the least
    it needs (Pages and OIDC tokens for the deploy job alone, write access for the record job alone),
    and no checkout keeping its credentials in the repository's git configuration."""
    assert _init(tmp_path, "--ci", "github") == 0
    capsys.readouterr()
    writes: dict[str, set[str]] = {}
    for name in WORKFLOWS:
        data = yaml.safe_load((tmp_path / ".github" / "workflows" / name).read_text())
        assert data["permissions"] == {}, name
        for job_name, job in data["jobs"].items():
            where = f"{name}: {job_name}"
            assert isinstance(job.get("permissions"), dict), where
            writes[where] = {k for k, v in job["permissions"].items() if v == "write"}
            for step in job["steps"]:
                if "uses" in step:
                    assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", step["uses"]), (where, step["uses"])
                if str(step.get("uses", "")).startswith("actions/checkout@"):
                    assert step["with"]["persist-credentials"] is False, where
    granted = {where: w for where, w in writes.items() if w}
    assert granted == {
        **{f"{name}: deploy": {"pages", "id-token"} for name in ("publish.yml", "fanout.yml")},
        "record.yml: record": {"contents", "pull-requests"},
    }


def test_actionlint_reads_the_workflows_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every workflow `init --ci github` writes, and the repository's own, lint clean under actionlint;
    a workflow with a misspelt runner label, job key and context property in the same run does not
    (the linter judges, it does not pass everything)."""
    command = actionlint_command()
    if command is None:
        pytest.skip(NO_ACTIONLINT)
    assert _init(tmp_path / "proj", "--ci", "github") == 0
    capsys.readouterr()
    generated = [tmp_path / "proj" / ".github" / "workflows" / name for name in WORKFLOWS]
    own = sorted(p for p in (ROOT / ".github" / "workflows").glob("*") if p.suffix in (".yml", ".yaml"))
    bad = tmp_path / "bad.yml"
    gate = generated[0].read_text()
    bad.write_text(
        gate.replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latst\n    timeout: 5", 1).replace(
            "github.base_ref", "github.bse_ref"
        )
    )
    done = subprocess.run(
        [*command, *map(str, [*generated, *own, bad])], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 1, done.stdout + done.stderr
    problems = done.stdout.splitlines()
    assert problems and all(line.startswith(f"{bad}:") for line in problems), done.stdout  # the others are clean
    for expected in ('"ubuntu-latst"', '"timeout"', '"bse_ref"'):
        assert any(expected in line for line in problems), expected


def test_the_workflow_lint_catches_what_it_claims(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "name: x\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    needs: nowhere\n    steps:\n"
        "      - uses: checkout\n"
        "      - run: echo ${{ secrets.KEY }} ${{ gihub.sha }}\n"
        "      - run: x\n        uses: a/b@v1\n"
        "      - run: y\n        wiht: {a: 1}\n"
    )
    problems = "\n".join(lint_workflow(bad))
    for expected in (
        "needs unknown job",
        "not owner/repo@ref",
        "secrets are read in env",
        "unknown context 'gihub'",
        "either uses or run",
        "unknown step key 'wiht'",
    ):
        assert expected in problems, expected
