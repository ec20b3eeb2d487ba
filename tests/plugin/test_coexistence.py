"""Beside the popular plugins: pytest-recording, syrupy and pytest-xdist in one session with ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.harness.project import make_project

pytest_plugins = ["pytester"]

INI = "[pytest]\naddopts = -p no:cacheprovider\nasyncio_default_fixture_loop_scope = function\nconformance_real = false\nconformance_root = .\n"

THEIR_TESTS = """
import httpx
import pytest


@pytest.mark.vcr
def test_recorded_with_pytest_recording():
    response = httpx.get("https://example.com/hello")
    assert response.text == "hi from the cassette"


def test_snapshot_with_syrupy(snapshot):
    assert {"answer": 42} == snapshot
"""

THEIR_CASSETTE = """interactions:
- request:
    body: null
    headers: {}
    method: GET
    uri: https://example.com/hello
  response:
    body:
      string: hi from the cassette
    headers: {}
    status:
      code: 200
      message: OK
version: 1
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytest.importorskip("pytest_recording")
    pytest.importorskip("syrupy")
    make_project(pytester.path)
    pytester.makeini(INI)
    pytester.makepyfile(test_theirs=THEIR_TESTS)
    cassette = pytester.path / "cassettes" / "test_theirs" / "test_recorded_with_pytest_recording.yaml"
    cassette.parent.mkdir(parents=True)
    cassette.write_text(THEIR_CASSETTE)
    return pytester


def test_both_plugins_options_are_registered_without_a_clash(project: pytest.Pytester) -> None:
    result = project.runpytest("--help")
    assert result.ret == 0
    # each plugin's group, in whatever order the installed plugins were found
    for option in ("*--record-mode*", "*--conformance-record-mode*", "*--snapshot-update*"):
        result.stdout.fnmatch_lines([option])


def test_their_suite_and_ours_run_in_one_session(project: pytest.Pytester) -> None:
    assert project.runpytest("--snapshot-update", "test_theirs.py").ret == 0  # syrupy writes its snapshot
    result = project.runpytest(
        "--record-mode=none", "--conformance-record-mode=none", "--conformance-provider", "anthropic", "-rs"
    )
    result.assert_outcomes(passed=3)  # their two tests and our one scenario item


def _matrix(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text())
    data.pop("generated_at")
    return data


def test_xdist_workers_write_the_same_matrix_as_one_process(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    one, two = project.path / "one", project.path / "two"
    args = ["-m", "provider", "-p", "no:randomly"]
    assert project.runpytest(*args, "--conformance-html", str(one)).ret == 0
    assert project.runpytest(*args, "-n", "2", "--conformance-html", str(two)).ret == 0
    assert _matrix(one / "matrix.json") == _matrix(two / "matrix.json")
    assert json.loads((two / "matrix.json").read_text())["counts"]


REVERSED = """
def pytest_collection_modifyitems(items):
    items.reverse()
"""


def test_the_matrix_does_not_depend_on_the_test_order(project: pytest.Pytester) -> None:
    forward, backward = project.path / "forward", project.path / "backward"
    args = ["-m", "provider", "-p", "no:randomly"]
    assert project.runpytest(*args, "--conformance-html", str(forward)).ret == 0
    project.makeconftest(REVERSED)
    assert project.runpytest(*args, "--conformance-html", str(backward)).ret == 0
    assert _matrix(forward / "matrix.json") == _matrix(backward / "matrix.json")
