"""Replays one job of a generated GitHub Actions workflow on this machine: its `run:` steps in order,
with bash as GitHub runs them (`-eo pipefail`), the step's `if:`, `env:` and `working-directory:`,
GitHub expressions replaced by test values, `$GITHUB_STEP_SUMMARY`/`$GITHUB_ENV`/`$RUNNER_TEMP`
files, and the job stopping at the first failing step (a step whose `if:` says `!cancelled()` or
`always()` still runs). Of the `uses:` steps, a checkout with a `path:` copies the given base tree;
the others (setup-python, artifacts, pages, pull requests) are recorded as not replayed. The install
step runs from the local source tree in place of the package index: the package under test is
already importable (PYTHONPATH), so the step checks that it is."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.commands.scaffold import INSTALL

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class Step:
    name: str
    code: int | None
    """The exit code; None for a step not replayed or skipped by its `if:`."""
    stdout: str = ""
    stderr: str = ""


@dataclass
class Job:
    steps: list[Step] = field(default_factory=list)
    summary: str = ""

    @property
    def ok(self) -> bool:
        return all(s.code in (0, None) for s in self.steps)

    def step(self, prefix: str) -> Step:
        return next(s for s in self.steps if s.name.startswith(prefix))


def _values(event: str, runner_temp: Path) -> dict[str, str]:
    return {
        "github.event_name": event,
        "github.base_ref": "main",
        "runner.temp": str(runner_temp),
        "secrets.ANTHROPIC_API_KEY": "",
        "matrix.release": "current",
        "matrix.runtime": "my_runtime:make",
    }


def _condition(expr: str, values: dict[str, str]) -> bool:
    text = EXPR.sub(r"\1", expr)
    text = text.replace("!cancelled()", "True").replace("always()", "True").replace("cancelled()", "False")
    for name, value in values.items():
        text = text.replace(name, repr(value))
    text = re.sub(r"!(?!=)", " not ", text.replace("&&", " and ").replace("||", " or "))
    return bool(eval(text, {"__builtins__": {}}, {"True": True, "False": False}))  # test values only


def _substitute(text: str, values: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise KeyError(f"no test value for ${{{{ {m.group(1)} }}}}")
        return values[m.group(1)]

    return EXPR.sub(one, text)


def replay(workflow: Path, job: str, workspace: Path, *, event: str, base: Path | None = None) -> Job:
    """Run `job` of `workflow` in `workspace` (the checked-out repository)."""
    data: dict[Any, Any] = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    temp = workspace.parent / f"{workspace.name}-runner-temp"
    temp.mkdir(exist_ok=True)
    summary, github_env = temp / "step-summary.md", temp / "github-env"
    summary.touch()
    github_env.touch()
    values = _values(event, temp)
    out = Job()
    failed = False
    for i, step in enumerate(data["jobs"][job]["steps"]):
        name = str(step.get("name") or step.get("uses") or step.get("run", "")).splitlines()[0]
        condition = str(step.get("if", "True"))
        forced = "cancelled()" in condition or "always()" in condition
        if (failed and not forced) or not _condition(condition, values):
            out.steps.append(Step(name, None))
            continue
        if "uses" in step:
            path = (step.get("with") or {}).get("path")
            if str(step["uses"]).startswith("actions/checkout@") and path and base is not None:
                shutil.copytree(base, workspace / path, symlinks=True)
            out.steps.append(Step(name, None))
            continue
        script = _substitute(str(step["run"]), values)
        script = script.replace(INSTALL, f'{sys.executable} -c "import conformance"')
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_", "GITHUB_"))}
        env.update({k: _substitute(str(v), values) for k, v in (step.get("env") or {}).items()})
        for line in github_env.read_text().splitlines():
            key, _, value = line.partition("=")
            env[key] = value
        env.update(
            GITHUB_WORKSPACE=str(workspace),
            GITHUB_STEP_SUMMARY=str(summary),
            GITHUB_ENV=str(github_env),
            RUNNER_TEMP=str(temp),
            CI="true",
            PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        )
        script_file = temp / f"step-{i}.sh"
        script_file.write_text(script)
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)],
            cwd=workspace / str(step.get("working-directory", ".")),
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        out.steps.append(Step(name, done.returncode, done.stdout, done.stderr))
        failed = failed or done.returncode != 0
    out.summary = summary.read_text()
    return out
