"""The plugin's bad inputs and empty runs: one usage error or one hint, never a wall of tracebacks."""

from __future__ import annotations

import json

import httpcore  # noqa: F401  imported once here, so the in-process runs share httpx's view of its errors
import pytest

from tests.harness.project import make_project

pytest_plugins = ["pytester"]

BASE_INI = (
    "[pytest]\naddopts = -p no:cacheprovider\nasyncio_default_fixture_loop_scope = function\nconformance_real = false\n"
)

CRASHING = """
from conformance.runtime.reference import ReferenceRuntime


class Crashing(ReferenceRuntime):
    def decode(self, *args, **kwargs):
        return _parse("not a mapping")


def _parse(data):
    return data.get("choices")


def make():
    return Crashing()
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    make_project(pytester.path)
    pytester.makeini(BASE_INI + "conformance_root = .\n")
    return pytester


@pytest.mark.parametrize("form", ["space", "equals"])
def test_root_option_in_both_forms_with_a_root_holding_its_own_config(pytester: pytest.Pytester, form: str) -> None:
    root = make_project(pytester.path / "upstream")
    (root / "pytest.ini").write_text(BASE_INI + "testpaths = nowhere\n")
    pytester.makeini(BASE_INI)
    args = ["--conformance-root", "upstream"] if form == "space" else ["--conformance-root=upstream"]
    result = pytester.runpytest("upstream/scenarios", *args, "--conformance-provider", "anthropic")
    result.assert_outcomes(passed=1)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("form", ["space", "equals"])
def test_root_option_reads_the_projects_config_not_the_roots(pytester: pytest.Pytester, form: str) -> None:
    """DIR's own pytest configuration (here one pytest cannot even run) is not the project's."""
    root = make_project(pytester.path / "upstream")
    (root / "pytest.ini").write_text("[pytest]\naddopts = --no-such-option\ntestpaths = nowhere\n")
    pytester.makeini(BASE_INI + "testpaths = upstream/scenarios\n")
    args = ["--conformance-root", "upstream"] if form == "space" else ["--conformance-root=upstream"]
    result = pytester.runpytest("-m", "provider", *args, "--conformance-provider", "anthropic")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["configfile: *"])
    assert "upstream" not in result.stdout.str().split("configfile:")[1].splitlines()[0]
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_root_option_with_a_space_before_a_plain_folder(pytester: pytest.Pytester) -> None:
    make_project(pytester.path / "mine")
    pytester.makeini(BASE_INI)
    result = pytester.runpytest("mine/scenarios", "--conformance-root", "mine", "--conformance-provider", "anthropic")
    result.assert_outcomes(passed=1)


def test_a_bad_runtime_is_one_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("-m", "provider", "--conformance-runtime", "no_such_module:make")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --conformance-runtime: *no_such_module*"])
    assert "failed" not in result.stdout.str()


def test_an_unknown_provider_is_one_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("-m", "provider", "--conformance-provider", "nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "collection error" not in result.stdout.str().lower()
    assert len(result.stderr.lines) <= 2


def test_nothing_collected_under_testpaths_says_why(project: pytest.Pytester) -> None:
    project.makeini(BASE_INI + "conformance_root = .\ntestpaths = tests\n")
    project.mkdir("tests")
    result = project.runpytest("-m", "provider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        ["*no scenario collected: *scenarios is outside testpaths (tests)*pytest -m provider scenarios*"]
    )


def test_a_crash_carries_the_runtime_traceback(project: pytest.Pytester) -> None:
    project.makepyfile(crashing_runtime=CRASHING)
    project.syspathinsert()
    out = project.path / "out"
    result = project.runpytest(
        "-m",
        "provider",
        "--conformance-provider",
        "anthropic",
        "--conformance-runtime",
        "crashing_runtime:make",
        "--conformance-html",
        str(out),
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*traceback of the runtime:*", "*crashing_runtime.py*in _parse*", "*AttributeError*"])
    matrix = json.loads((out / "matrix.json").read_text())
    (res,) = [r for cell in matrix["cells"] for r in cell["results"]]
    assert "in _parse" in res["traceback"]
    html = (out / "index.html").read_text()
    assert "traceback of the runtime" in html and "in _parse" in html


def test_base_url_and_accept_options_exist(project: pytest.Pytester) -> None:
    result = project.runpytest("--help")
    result.stdout.fnmatch_lines(["*--conformance-base-url=URL*", "*--conformance-accept*"])


def test_accept_with_a_base_url_records_from_there(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-key")
    result = project.runpytest(
        "-m",
        "provider",
        "--conformance-provider",
        "anthropic",
        "--conformance-record-mode",
        "all",
        "--conformance-base-url",
        "http://127.0.0.1:9",
    )
    assert "127.0.0.1:9" in result.stdout.str()


def test_a_layered_user_root_collects_its_scenarios_beside_the_bundled_ones(pytester: pytest.Pytester) -> None:
    from conformance.data import bundled_root
    from tests.harness.project import OVERRIDE_TITLE, make_user_root

    make_user_root(pytester.path / "mine", bundled_root() / "scenarios")
    pytester.makeini(BASE_INI + "conformance_root = mine\ntestpaths = mine/scenarios\n")
    result = pytester.runpytest("-m", "provider", "--collect-only", "-q", "--conformance-provider", "anthropic")
    out = result.stdout.str()
    assert "text_hello[anthropic]" in out and "text_basic[anthropic]" in out
    from conformance.scenarios import load_scenarios

    # every bundled scenario that has an anthropic row (`applies_to` may leave a column out)
    bundled = sum(1 for s in load_scenarios(bundled_root() / "scenarios") if s.applies("anthropic"))
    assert f"{bundled + 1} tests collected" in out
    result = pytester.runpytest("-m", "provider", "--conformance-provider", "openai", "-k", "text_hello or text_basic")
    result.assert_outcomes(passed=1)  # text_hello applies to anthropic only: no openai item at all
    result = pytester.runpytest("-m", "provider", "--conformance-provider", "anthropic", "-k", "text_hello", "-rA")
    result.assert_outcomes(passed=1)
    # the override is the one collected: its file lives in the user's root
    collected = pytester.runpytest(
        "-m", "provider", "--collect-only", "-q", "--conformance-provider", "openai", "-k", "text_basic"
    )
    assert "mine/scenarios/responses/text_basic.yaml::text_basic[openai]" in collected.stdout.str()
    assert OVERRIDE_TITLE in (pytester.path / "mine/scenarios/responses/text_basic.yaml").read_text()


IDLE_PROBE = """
import json
import sys


def pytest_unconfigure(config):
    loaded = sorted(m for m in sys.modules if m == "conformance" or m.startswith("conformance."))
    with open("loaded.json", "w") as f:
        json.dump(loaded, f)
"""


def test_the_idle_plugin_imports_nothing_of_the_harness(pytester: pytest.Pytester) -> None:
    """A project that did not ask for the checks pays only for the plugin module at pytest's start
    (`python benchmarks/plugin_startup.py` measures it: about 40 ms)."""
    pytester.makeini(BASE_INI)
    pytester.makeconftest(IDLE_PROBE)
    pytester.makepyfile(test_theirs="def test_theirs():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(passed=1)
    loaded = json.loads((pytester.path / "loaded.json").read_text())
    assert loaded == ["conformance", "conformance.pytest_plugin"]
