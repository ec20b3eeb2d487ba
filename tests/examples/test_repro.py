"""`conformance repro`: every `defect` row of docs/runtimes.md as a standalone script (docs/repro/),
run with the pinned library alone: it fails with the row's difference, and passes once its expected
value is what the library gives."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

if not all(importlib.util.find_spec(name) for name in ("openai", "pydantic_ai", "litellm")):
    pytest.skip("the pinned libraries are not installed", allow_module_level=True)  # not imported here

ROOT = Path(__file__).resolve().parents[2]
SPECS = {
    "openai-sdk": "examples.openai_sdk:make",
    "anthropic-sdk": "examples.anthropic_sdk:make",
    "openai-sdk (async)": "examples.openai_sdk:make_async",
    "anthropic-sdk (async)": "examples.anthropic_sdk:make_async",
    "pydantic-ai": "examples.pydantic_ai_runtime:make",
    "pydantic-ai (decode only)": "examples.pydantic_ai_runtime:make_decoder",
    "litellm": "examples.litellm_runtime:make",
    "google-genai": "examples.google_genai_runtime:make",
}
"""The classification table's runtime labels → their specs (as scripts/runtime_counts.py runs them)."""
OWN_PROCESS = frozenset({"litellm"})
"""Labels whose script is written in a process of its own (scripts/runtime_counts.py runs them
`isolated`: the library reads by what else the process imported); the others' in this one."""

ALONE = (
    "import runpy, sys\n"
    "sys.modules['conformance'] = sys.modules['examples'] = None  # importing either fails\n"
    "sys.argv = sys.argv[1:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)
"""Runs a script with the project made unimportable (the venv has it installed)."""


def defect_rows() -> list[tuple[str, str, str]]:
    """(runtime label, scenario, provider) of every row the classification table classes `defect`."""
    text = (ROOT / "docs" / "runtimes.md").read_text(encoding="utf-8")
    table = text[text.index("<!-- classes:begin -->") : text.index("<!-- classes:end -->")]
    out = []
    for line in table.splitlines()[3:]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) < 5 or "defect" not in cells[4]:
            continue
        label, scenario, providers, cls = cells[0], cells[1].split("`")[1], cells[3].split(", "), cells[4]
        if cls == "defect":
            chosen = providers
        else:
            chosen = [p for part in cls.split("; ") if part.startswith("defect (") for p in part[8:-1].split(", ")]
        out += [(label, scenario, p) for p in chosen]
    return out


ROWS = defect_rows()


def _id(row: tuple[str, str, str]) -> str:
    label, scenario, provider = row
    return f"{label.replace(' (decode only)', '-decode-only').replace(' (async)', '-async')}-{scenario}-{provider}"


def _alone(script: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CI")}
    return subprocess.run(
        [sys.executable, "-I", "-W", "ignore", "-c", ALONE, str(script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _row_lines(source: str) -> list[str]:
    """The row's difference as the script's docstring quotes it (`run --show-diff`)."""
    doc = ast.get_docstring(ast.parse(source)) or ""
    quoted = doc.split("shows it", 1)[1].split("\n\nRule source:", 1)[0]
    return [line.strip() for line in quoted.splitlines()[1:] if line.strip()]


def _same_difference(printed: list[str], row: list[str]) -> None:
    """Each printed line is the row's: the same path and expected value (a `got` is the library's
    own value: a request as sent, where the row reads it as the provider does)."""
    if row and row[0][:2] not in ("~ ", "- ", "+ "):  # a rule the request breaks: the row's reason
        assert printed and all(line[2:] in " ".join(row) for line in printed), (printed, row)
        return
    assert len(printed) == len(row), (printed, row)
    for mine, theirs in zip(printed, row, strict=True):
        if theirs.startswith("~ "):
            assert mine.split(", got ")[0] == theirs.split(", got ")[0]
        elif theirs.startswith("- "):
            assert mine == theirs
        else:
            assert mine.split(": ")[0] == theirs.split(": ")[0]


def test_the_table_has_defect_rows() -> None:
    assert len(ROWS) >= 10
    assert all(label in SPECS for label, _, _ in ROWS)


def test_every_defect_row_links_its_script() -> None:
    text = (ROOT / "docs" / "runtimes.md").read_text(encoding="utf-8")
    table = text[text.index("<!-- classes:begin -->") : text.index("<!-- classes:end -->")]
    linked = set(re.findall(r"\]\(repro/([^)]+\.py)\)", table))
    for row in ROWS:
        name = f"{_id(row)}.py"  # the script's name is the row's id
        assert name in linked, f"{row}: no link to repro/{name}"
        assert (ROOT / "docs" / "repro" / name).is_file()


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_every_defect_row_has_a_standalone_script_that_fails_with_its_difference(
    row: tuple[str, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    label, scenario, provider = row
    out = tmp_path / "written"
    command = ["repro", scenario, "--provider", provider, "--runtime", SPECS[label], "--out", str(out)]
    if label in OWN_PROCESS:
        # written in a process of its own, as a user runs it (litellm reads by what the process imported)
        env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
        env.pop("CI", None)
        made = subprocess.run(
            [sys.executable, "-W", "ignore", "-m", "conformance.cli", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert made.returncode == 0, made.stderr
    else:
        from conformance.cli import main

        monkeypatch.chdir(ROOT)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # as `python -W ignore`: the library's own warnings are not the row's
            assert main(command) == 0, capsys.readouterr().err
    [script] = out.glob("*.py")
    source = script.read_text(encoding="utf-8")
    committed = ROOT / "docs" / "repro" / script.name
    assert committed.is_file() and committed.read_text(encoding="utf-8") == source, f"regenerate {committed}"
    for node in ast.walk(ast.parse(source)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        assert not any(n.split(".")[0] in ("conformance", "examples") for n in names)
    fails = _alone(script, tmp_path)
    assert fails.returncode == 1, fails.stdout + fails.stderr
    _same_difference(fails.stdout.splitlines()[1:], _row_lines(source))
    # the same script, its expected value what the library gives: it passes
    got = _alone(script, tmp_path, "--got")
    assert got.returncode == 0, got.stderr
    block = re.compile(r"(EXPECTED = json\.loads\(r''')\n.*?\n('''\)  # EXPECTED end)", re.S)
    assert block.search(source)
    passing = tmp_path / "passing.py"
    passing.write_text(block.sub(lambda m: f"{m[1]}\n{got.stdout.strip()}\n{m[2]}", source), encoding="utf-8")
    agrees = _alone(passing, tmp_path)
    assert agrees.returncode == 0, agrees.stdout + agrees.stderr
    assert agrees.stdout.startswith("ok: ")
