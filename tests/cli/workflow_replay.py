"""Replays one job of a generated GitHub Actions workflow on this machine: its `run:` steps in order,
with bash as GitHub runs them (`-eo pipefail`), the step's `if:`, `env:` and `working-directory:`,
GitHub expressions replaced by test values, `$GITHUB_STEP_SUMMARY`/`$GITHUB_ENV`/`$RUNNER_TEMP`
files, and the job stopping at the first failing step (a step whose `if:` says `!cancelled()` or
`always()` still runs). Of the `uses:` steps, a checkout with a `path:` copies the given base tree;
the others (setup-python, artifacts, pages, pull requests) are recorded as not replayed.

The steps run in a `Runner`: a virtual environment of its own, on PATH first, where the package
under test is not importable until the workflow's install step installs it, from the project's
wheel in place of the package index (non-editable; the step checks the `conformance` it imports is
the installed one, not a source tree)."""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
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


@dataclass(frozen=True)
class Runner:
    """A fresh Python environment for the replayed jobs, as a runner's after setup-python."""

    venv: Path
    wheel: Path

    @classmethod
    def create(cls, where: Path, wheel: Path) -> Runner:
        """A virtual environment in `where` that sees the packages of the one running the tests (the
        dependencies, so nothing is downloaded) but not the package under test: the other's
        site-packages are read as a path (a `.pth` line), so the `.pth` files there, an editable
        install's among them, are not."""
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
        purelib = Path(sysconfig.get_path("purelib", vars={"base": str(where), "platbase": str(where)}))
        shared = [
            p for p in dict.fromkeys([*site.getsitepackages(), sysconfig.get_path("purelib")]) if Path(p).is_dir()
        ]
        (purelib / "_tests_shared_packages.pth").write_text("".join(f"{p}\n" for p in shared))
        return cls(where, wheel)

    @property
    def bin(self) -> Path:
        return self.venv / ("Scripts" if os.name == "nt" else "bin")

    def env(self) -> dict[str, str]:
        """This process's environment as the runner's: no PYTHONPATH (nor pytest's own variables), the
        environment's bin first on PATH."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("PYTEST_", "COV_", "GITHUB_", "PYTHON", "VIRTUAL_ENV"))
        }
        env.update(VIRTUAL_ENV=str(self.venv), PATH=os.pathsep.join([str(self.bin), env.get("PATH", "")]))
        return env

    @property
    def install(self) -> str:
        """The install step's command with the wheel in place of the index, then the check of what
        `import conformance` reads."""
        return (
            f'python -m pip install --quiet --no-index "{self.wheel}"\n'
            'python -c "import conformance; print(conformance.__file__)"'
        )


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


def replay(workflow: Path, job: str, workspace: Path, runner: Runner, *, event: str, base: Path | None = None) -> Job:
    """Run `job` of `workflow` in `workspace` (the checked-out repository) in `runner`."""
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
        installs = INSTALL in script
        script = script.replace(INSTALL, runner.install)
        env = runner.env()
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
        if installs and done.returncode == 0:
            imported = Path(done.stdout.strip().splitlines()[-1])
            if not imported.resolve().is_relative_to(
                runner.venv.resolve()
            ):  # a source tree or another environment's copy
                raise AssertionError(f"the replayed job imports {imported}, not the wheel installed in {runner.venv}")
        failed = failed or done.returncode != 0
    out.summary = summary.read_text()
    return out
