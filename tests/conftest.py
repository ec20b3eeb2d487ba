"""Shared test configuration: hypothesis settings profiles, and the tests only the full step runs.

``HYPOTHESIS_PROFILE=ci`` (the default) runs about 50 examples per property without deadlines;
``HYPOTHESIS_PROFILE=deep`` runs 1000 for a thorough local or nightly run.

``FULL`` lists, by node-id prefix, the expensive evidence that `pytest -n auto` leaves to the
second step of `.ci/run` (`pytest -n auto -m full`): each entry gets the registered ``full``
marker, which the project's ``addopts`` (``-m "not full"``) deselects. Every entry names the
tests that stay in the default selection for the same behaviour (its representatives). The bundled
scenarios' items on a provider beside its dialect's column in ``DIALECT_COLUMNS`` are marked the same
way, but for one per scenario and dialect that judges the row (``beside_their_dialect``): the
README's command judges every bundled row on one provider per dialect that has it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]

settings.register_profile("ci", max_examples=50, deadline=None)
settings.register_profile("deep", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel (tests/packaging/wheel.py), built once per session: under xdist the workers
    share their session's folder, and the first to need the wheel builds it for all."""
    from filelock import FileLock

    from tests.packaging.wheel import build_wheel  # here: scripts/check_selection.py imports this file alone

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the folder of the session, its workers' folders inside
    built = shared / "wheel-built"
    with FileLock(str(shared / "wheel.lock")):
        if built.is_file():
            return Path(built.read_text())
        try:
            found = build_wheel(tmp_path_factory.mktemp("wheel"))
        except RuntimeError as error:
            pytest.fail(str(error))
        built.write_text(str(found))
        return found


@pytest.fixture(autouse=True)
def _not_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as on a developer's machine: `CI` (which turns `--strict` on by default) is
    unset, so a test's own small project, where a missing cassette is the point, reads the same in CI;
    tests of the CI default set it themselves."""
    monkeypatch.delenv("CI", raising=False)


DIALECT_COLUMNS = ("openai", "anthropic", "gemini", "ollama", "openai_responses")
"""One provider per dialect: where the README's command keeps the rows it leaves to the full step on
the other providers."""

FULL: dict[str, str] = {
    # every row out of process, per dialect; stays: ...on_a_sample_of_every_check[<dialect>]
    "tests/runtime/test_process_runtime.py::test_out_of_process_reference_matches_in_process_on_every_row[": (
        "the out-of-process reference over every row of one provider per dialect (real retry waits)"
    ),
    # the TypeScript libraries' full count runs; stay: the decode-only counts, handshake and decode tests
    "tests/examples/test_typescript.py::test_the_documented_counts_are_reproduced[pi-ai]": "pi-ai's full count run",
    "tests/examples/test_typescript.py::test_the_documented_counts_are_reproduced[ai-sdk]": "ai-sdk's full count run",
    # stays: ...test_the_readme_command_judges_turn_rows_through_the_program (two rows)
    "tests/examples/test_typescript.py::test_the_readme_command_writes_a_matrix_and_a_report": (
        "pi-ai over every row of two providers"
    ),
    # the example adapters' full count tables; stay: reference on anthropic and gemini, the SDK
    # adapters, pydantic-ai decode-only on anthropic, and the SDK adapters' red rows
    "tests/examples/test_runtime_counts.py::test_the_documented_counts_are_reproduced[reference-OpenAI-chat]": (
        "the reference's counts on the OpenAI-chat group (every openai_chat column)"
    ),
    "tests/examples/test_runtime_counts.py::test_the_documented_counts_are_reproduced[pydantic-ai-": (
        "pydantic-ai's full count runs"
    ),
    # reads the same full runs; stay: the red rows of the SDK adapters and of pydantic-ai decode-only
    "tests/examples/test_runtime_counts.py::test_every_red_row_is_read_and_classed_by_its_evidence[pydantic-ai]": (
        "the classification of pydantic-ai's red rows, from its full count runs"
    ),
    # pydantic-ai decode-only beside the SDK adapters of the same dialects; stay: its anthropic
    # group, openai-sdk (sync and async) on OpenAI-chat, google-genai on gemini, and the SDK
    # adapters' and google-genai's red rows
    "tests/examples/test_runtime_counts.py::test_the_documented_counts_are_reproduced[pydantic-ai (decode only)-OpenAI-chat]": (
        "pydantic-ai decode-only's counts on the OpenAI-chat group (every openai_chat column)"
    ),
    "tests/examples/test_runtime_counts.py::test_the_documented_counts_are_reproduced[pydantic-ai (decode only)-gemini]": (
        "pydantic-ai decode-only's counts on the gemini group"
    ),
    "tests/examples/test_runtime_counts.py::test_every_red_row_is_read_and_classed_by_its_evidence[pydantic-ai (decode only)]": (
        "the classification of pydantic-ai decode-only's red rows, from its runs of every group"
    ),
    # litellm's count runs (every column of three groups through its async client, real traffic
    # left out) and the reading of its red rows; stay: google-genai's counts and red rows
    "tests/examples/test_runtime_counts.py::test_the_documented_counts_are_reproduced[litellm-": (
        "litellm's full count runs"
    ),
    "tests/examples/test_runtime_counts.py::test_every_red_row_is_read_and_classed_by_its_evidence[litellm]": (
        "the classification of litellm's red rows, from its full count runs"
    ),
    # every adapter run again with real traffic, each failing row's library objects inspected (the
    # full step runs it beside the count runs it reads)
    "tests/examples/test_runtime_library_keeps.py::test_no_red_decode_row_is_one_the_library_has_the_answer_to[": (
        "each adapter's decode rows, the library's own objects read"
    ),
    "tests/examples/test_runtime_library_keeps.py::test_no_failing_real_call_is_one_the_library_has_the_answer_to[": (
        "each adapter over the 1,459 real calls, the library's own objects read"
    ),
    # large xdist and fork runs; stay: test_auto_over_a_few_checks_runs_them_in_one_process, the
    # sizing tests (test_auto_forks_one_process_per_cpu_for_a_large_run, ..._sizes_xdist_workers_...),
    # test_their_suite_and_ours_run_in_one_session, test_the_matrix_does_not_depend_on_the_test_order
    "tests/plugin/test_xdist_workers.py::test_auto_runs_a_large_run_ahead_in_forked_processes_with_the_same_matrix": (
        "two provider runs of every bundled scenario, one of them forked"
    ),
    "tests/plugin/test_xdist_workers.py::test_whole_corpus_rows_run_on_one_worker": "an xdist run of every row",
    "tests/plugin/test_xdist_workers.py::test_auto_is_xdists_when_other_tests_are_selected_or_the_count_is_set": (
        "two xdist runs"
    ),
    "tests/plugin/test_coexistence.py::test_xdist_workers_write_the_same_matrix_as_one_process": "an xdist run",
    # stays: test_the_command_itself_never_prints_a_traceback (the console script, exit 1, a matrix)
    "tests/harness/test_hostile.py::test_conformance_run_with_a_hostile_runtime_writes_a_matrix_and_exits_1": (
        "the hostile runtime over every hostile row and the whole-corpus rows of two providers"
    ),
    # the whole shipped corpus scanned again (`.ci/run` lints it with `conformance lint corpus` first);
    # stay: the lint and credential-shape tests on planted files, and the bundled cassettes' scan
    "tests/harness/test_lint.py::test_the_shipped_corpus_is_clean": "lint over the 929 shipped recordings",
    "tests/harness/test_lint_credentials.py::test_the_bundled_cassettes_and_the_corpus_hold_no_credential[corpus]": (
        "the credential-shape scan of the 929 shipped recordings"
    ),
    # the generated workflows replayed step by step, the package installed from its wheel in a venv of
    # its own (about 15 s a test); stay: tests/cli/test_init.py's workflow tests (structure, actionlint,
    # pinned actions and permissions), tests/cli/test_init_joins.py (the library's pytest after init, a
    # bare run), tests/report/test_gate.py and test_ci_outputs.py (the gate, JUnit XML, the summary)
    "tests/cli/test_workflow_replay.py::": "each generated workflow's run: steps replayed from the wheel",
    # the standalone scripts of pydantic-ai's and litellm's defect rows, each written and run three
    # times in processes of their own; stay: the openai-SDK row's script, tests/cli/test_repro.py
    "tests/examples/test_repro.py::test_every_defect_row_has_a_standalone_script_that_fails_with_its_difference[pydantic-ai-": (
        "pydantic-ai's defect rows as standalone scripts"
    ),
    "tests/examples/test_repro.py::test_every_defect_row_has_a_standalone_script_that_fails_with_its_difference[litellm-": (
        "litellm's defect rows as standalone scripts"
    ),
    # stays: the same recording of the first rows of every provider ([sample])
    "tests/emulator/test_emulator.py::test_record_every_provider_through_the_emulator_without_leaking_keys[every-row]": (
        "every bundled decode row of every provider recorded through the emulator"
    ),
    # stays: test_run_from_the_installed_wheel_in_an_empty_folder
    "tests/packaging/test_wheel.py::test_a_scaffolded_root_layers_over_the_installed_wheel": (
        "init and a run of a scaffolded root from the installed wheel (the install is shared)"
    ),
}


def full_reason(nodeid: str) -> str | None:
    """Why the item is left to the full step, or None when `pytest -n auto` runs it."""
    return next((why for prefix, why in FULL.items() if nodeid.startswith(prefix)), None)


def beside_their_dialect(items: list[pytest.Item]) -> set[str]:
    """Node ids of the bundled scenarios' items (`conformance.pytest_plugin.ScenarioItem`) another item
    of the same scenario and dialect represents. Per scenario and dialect, the item kept is the
    dialect's column in `DIALECT_COLUMNS` when its entry judges the row (is not `unsupported`), else
    the first provider of the dialect, by name, whose entry does (DeepSeek's `reasoning_content`,
    which OpenAI's column declares unsupported, stays on `cerebras`); the dialect's column always
    stays. A row no provider of a dialect judges keeps that column alone."""
    from conformance.capabilities import get_profile
    from conformance.pytest_plugin import ScenarioItem

    column_of = {get_profile(name).dialect: name for name in DIALECT_COLUMNS}
    groups: dict[tuple[str, str], list[ScenarioItem]] = {}
    for item in items:
        if isinstance(item, ScenarioItem):
            dialect = get_profile(item.provider).dialect
            groups.setdefault((item.scenario.id, dialect), []).append(item)

    def judges(item: ScenarioItem) -> bool:
        entry = item.scenario.entry(item.provider)
        return entry is None or entry.unsupported is None

    out: set[str] = set()
    for (_, dialect), group in groups.items():
        column = column_of.get(dialect)
        if column is None or column not in {item.provider for item in group}:
            continue  # a dialect without its column in this run: every item stays
        judged = sorted((item for item in group if judges(item)), key=lambda item: item.provider)
        kept = {column}
        if judged and column not in {item.provider for item in judged}:
            kept.add(judged[0].provider)
        out |= {item.nodeid for item in group if item.provider not in kept}
    return out


COUNT_RUNS = ("tests/examples/test_runtime_counts.py::", "tests/examples/test_typescript.py::")
"""Tests that read an example adapter's fresh runs, kept once per process (`scripts/*_counts.py`)."""


def _count_label(item: pytest.Item) -> str | None:
    """The adapter label whose fresh runs the item reads, for the tests of `COUNT_RUNS`."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or not item.nodeid.startswith(COUNT_RUNS):
        return None
    label = callspec.params.get("label")
    return label if isinstance(label, str) else None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    grouped = config.pluginmanager.hasplugin("xdist")
    represented = beside_their_dialect(items)
    for item in items:
        if full_reason(item.nodeid) is None and item.nodeid not in represented:
            continue
        item.add_marker(pytest.mark.full)
        label = _count_label(item)
        if grouped and label is not None:
            # under `--dist loadgroup` (the full step of .ci/run), one worker runs an adapter once
            # for every test that reads its runs
            item.add_marker(pytest.mark.xdist_group(f"counts-{label}"))
