"""`pytest --conformance-runtime-cmd`: the matrix's items answered by a program over the JSON-lines protocol."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.harness.project import make_project

pytest_plugins = ["pytester"]

INI = "[pytest]\naddopts = -p no:cacheprovider\nasyncio_default_fixture_loop_scope = function\nconformance_real = false\nconformance_root = .\n"
ADAPTER = f"{sys.executable} {Path(__file__).parents[1] / 'runtime' / 'oop_reference.py'}"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    make_project(pytester.path)
    pytester.makeini(INI)
    return pytester


def test_items_are_answered_by_the_program(project: pytest.Pytester) -> None:
    out = project.path / "out"
    result = project.runpytest_subprocess(
        "-m",
        "provider",
        "--conformance-provider=anthropic",
        "--conformance-provider=openai",
        f"--conformance-runtime-cmd={ADAPTER}",
        "--conformance-runtime-timeout=60",
        "--conformance-runtime-start-timeout=120",
        f"--conformance-html={out}",
        "-rs",
    )
    result.assert_outcomes(passed=1, skipped=1)
    matrix = json.loads((out / "matrix.json").read_text())
    assert matrix["runtime"] == "reference-oop 1"
    assert matrix["counts"]["pass"] == 1


def test_a_program_fault_fails_the_item_with_its_reason(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAULT", "hang")
    monkeypatch.setenv("FAULT_EVERY", "1")
    result = project.runpytest_subprocess(
        "-m",
        "provider",
        "--conformance-provider=anthropic",
        f"--conformance-runtime-cmd={ADAPTER}",
        "--conformance-runtime-timeout=0.5",  # every call hangs: the timeout must expire
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*runtime program did not answer `*` within 0.5 s*fault hang on call*"])


def test_a_program_that_cannot_start_is_a_usage_error(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAULT", "crash-at-start")
    result = project.runpytest_subprocess("-m", "provider", f"--conformance-runtime-cmd={ADAPTER}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--conformance-runtime-cmd: runtime program exited*cannot load the library*"])
