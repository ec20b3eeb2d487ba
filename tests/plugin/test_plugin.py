"""The pytest plugin end to end, in a throwaway project run by pytester."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.capabilities import matrix_providers
from tests.harness.project import SCENARIO, make_project

pytest_plugins = ["pytester"]

BASE_INI = (
    "[pytest]\naddopts = -p no:cacheprovider\nasyncio_default_fixture_loop_scope = function\nconformance_real = false\n"
)
INI = BASE_INI + "conformance_root = .\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    make_project(pytester.path)
    pytester.makeini(INI)
    return pytester


def ini(pytester: pytest.Pytester, *, active: bool = True) -> Path:
    path = pytester.path / "pytest.ini"
    path.write_text(INI if active else BASE_INI)
    return path


def test_one_item_per_scenario_and_provider(project: pytest.Pytester) -> None:
    result = project.runpytest(
        "-m",
        "provider",
        "--collect-only",
        "-q",
        "--conformance-provider",
        "anthropic",
        "--conformance-provider",
        "openai",
    )
    result.stdout.fnmatch_lines(
        ["*text_hello.yaml::text_hello[[]anthropic[]]", "*text_hello.yaml::text_hello[[]openai[]]"]
    )


def test_marker_is_registered_with_a_description(project: pytest.Pytester) -> None:
    result = project.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.provider: a conformance check of one scenario*"])


def test_pass_and_unsupported(project: pytest.Pytester) -> None:
    result = project.runpytest(
        "-m", "provider", "--conformance-provider", "anthropic", "--conformance-provider", "openai", "-rs"
    )
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*unsupported: not under test here*"])


def test_narrowing_to_one_provider(project: pytest.Pytester) -> None:
    result = project.runpytest("-m", "provider", "--conformance-provider", "anthropic")
    result.assert_outcomes(passed=1)


def test_failure_shows_a_readable_diff(pytester: pytest.Pytester) -> None:
    make_project(pytester.path, scenario=SCENARIO.replace('text: "Hello!"', 'text: "Hi!"'))
    result = pytester.runpytest("-m", "provider", "--conformance-provider", "anthropic", "-c", str(ini(pytester)))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*text_hello[[]anthropic[]] — Plain text from Anthropic*",
            "*cassette: cassettes/anthropic/text_hello.yaml*",
            '*~ message.content[[]0[]].text: expected "Hi!", got "Hello!"*',
            "*expected:*",
            "*actual:*",
        ]
    )


def test_a_broken_scenario_is_a_collection_error_naming_the_file(pytester: pytest.Pytester) -> None:
    make_project(pytester.path)
    (pytester.path / "scenarios/responses/text_hello.yaml").write_text(
        SCENARIO.replace("feature: text", "feature: nope")
    )
    result = pytester.runpytest("-m", "provider", "-c", str(ini(pytester)))
    result.stdout.fnmatch_lines(["*text_hello.yaml: feature: Value error, unknown feature 'nope'*"])
    assert result.ret != 0


def test_unknown_provider_option(project: pytest.Pytester) -> None:
    result = project.runpytest("-m", "provider", "--conformance-provider", "nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--conformance-provider: unknown provider 'nope'; known providers: openai, anthropic*"]
    )


def test_html_report_and_matrix_written(project: pytest.Pytester) -> None:
    out = project.path / "out"
    result = project.runpytest("-m", "provider", "--conformance-provider", "anthropic", "--conformance-html", str(out))
    result.assert_outcomes(passed=1)
    matrix = json.loads((out / "matrix.json").read_text())
    assert matrix["counts"]["pass"] == 1
    assert (out / "index.html").is_file()


def test_projects_without_scenarios_are_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", stray="a: 1")
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest("-c", str(ini(pytester, active=False)))
    result.assert_outcomes(passed=1)


def test_a_project_that_did_not_ask_is_left_alone_even_with_scenarios_and_cassettes(
    pytester: pytest.Pytester,
) -> None:
    make_project(pytester.path)
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest("-c", str(ini(pytester, active=False)), "-v")
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*text_hello*")
    assert "provider:" not in pytester.runpytest("--markers", "-c", str(ini(pytester, active=False))).stdout.str()


def test_project_root_option(pytester: pytest.Pytester, tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    result = pytester.runpytest(
        str(root / "scenarios"), "--conformance-root", str(root), "-c", str(ini(pytester, active=False))
    )
    result.assert_outcomes(passed=1, skipped=len(matrix_providers()) - 1)


def test_record_mode_without_a_key_skips_naming_the_variable(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = project.runpytest(
        "-m", "provider", "--conformance-provider", "anthropic", "--conformance-record-mode", "once", "-rs"
    )
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*skipped: anthropic: no API key; set ANTHROPIC_API_KEY in the environment*"])


def test_record_mode_choices(project: pytest.Pytester) -> None:
    result = project.runpytest("-m", "provider", "--conformance-record-mode", "sometimes")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*invalid choice: 'sometimes'*"])


DECLARED_RUNTIME = """\
from conformance.runtime.protocol import Declaration
from conformance.runtime.reference import ReferenceRuntime


class OpenAIOnly(ReferenceRuntime):
    declaration = Declaration(name="openai-only", providers=frozenset({"openai"}))


def make():
    return OpenAIOnly()
"""


def test_a_provider_the_runtime_does_not_offer_is_skipped_not_passed(project: pytest.Pytester) -> None:
    project.makepyfile(declared_runtime=DECLARED_RUNTIME)
    project.syspathinsert()
    result = project.runpytest(
        "-m",
        "provider",
        "--conformance-provider",
        "anthropic",
        "--conformance-runtime",
        "declared_runtime:make",
        "-rs",
    )
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not_offered: runtime openai-only does not support anthropic*"])


def test_real_traffic_items_one_per_column(project: pytest.Pytester) -> None:
    """With `conformance_real` (the default), each column's real calls are one item, `real[<column>]`,
    marked `provider`; `--conformance-no-real` leaves them out."""
    project.makeini(BASE_INI.replace("conformance_real = false\n", "") + "conformance_root = .\n")
    args = ["-m", "provider", "--conformance-provider", "xai"]
    result = project.runpytest(*args, "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*::real::real[[]xai[]]"])
    out = project.path / "out"
    result = project.runpytest(*args, "-k", "real", "--conformance-html", str(out))
    result.assert_outcomes(passed=1)
    matrix = json.loads((out / "matrix.json").read_text())
    assert [(c["provider"], c["traffic"]["counts"]) for c in matrix["real_traffic"]] == [("xai", {"pass": 10})]
    result = project.runpytest(*args, "--collect-only", "-q", "--conformance-no-real")
    assert "real[" not in result.stdout.str()
