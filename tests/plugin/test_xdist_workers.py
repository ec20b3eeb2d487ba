"""What a parallel run costs: `-n auto` runs a large run's checks ahead in forked processes (a small
one in this process), `-n N`'s xdist workers give the whole-corpus rows to one of them, and no
harness module is rewritten by pytest's assertion hook."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conformance.pytest_workers import CHECKS_PER_FORK, CHECKS_PER_WORKER, Decision, count_checks, cpus, decide
from tests.harness.project import make_project

pytest_plugins = ["pytester"]

BASE_INI = (
    "[pytest]\naddopts = -p no:cacheprovider\nasyncio_default_fixture_loop_scope = function\nconformance_real = false\n"
)


# -n auto --------------------------------------------------------------------------------------------


def test_auto_forks_one_process_per_cpu_for_a_large_run() -> None:
    assert decide(30 * CHECKS_PER_FORK, 2, True) == Decision(0, 2, 30 * CHECKS_PER_FORK, 2)
    assert decide(3 * CHECKS_PER_FORK, 8, True).forks == 3
    assert decide(CHECKS_PER_FORK, 8, True) == Decision(0, 0, CHECKS_PER_FORK, 8)  # one fork only adds cost
    assert "forked processes" in decide(3000, 2, True).describe()
    assert "run in this process" in decide(20, 2, True).describe()


def test_auto_without_fork_sizes_xdist_workers_to_the_run() -> None:
    assert decide(4 * CHECKS_PER_WORKER, 2, False) == Decision(2, 0, 4 * CHECKS_PER_WORKER, 2)
    assert decide(4 * CHECKS_PER_WORKER, 8, False).workers == 4
    assert decide(CHECKS_PER_WORKER, 8, False).workers == 0  # one worker under a controller only adds cost


def test_checks_are_counted_from_the_files_the_targets_reach(tmp_path: Path) -> None:
    low, top = tmp_path / "bundled" / "scenarios", tmp_path / "mine" / "scenarios"
    for directory, names in ((low, ["a/one.yaml", "a/two.yaml", "b/three.yaml"]), (top, ["a/one.yaml", "c/x.yaml"])):
        for name in names:
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            (directory / name).write_text("title: x\n")
    assert count_checks([low, top], [tmp_path / "mine"], 3) == 4 * 3  # an override counts once
    assert count_checks([low, top], [top / "c"], 2) == 2
    assert count_checks([low, top], [top / "c" / "x.yaml"], 2) == 2
    assert count_checks([low, top], [tmp_path / "tests"], 2) == 0  # a target outside the scenarios


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytest.importorskip("xdist")
    make_project(pytester.path)
    pytester.makeini(BASE_INI + "conformance_root = .\n")
    return pytester


def test_auto_over_a_few_checks_runs_them_in_one_process(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-m", "provider", "-n", "auto", "-p", "no:randomly")
    out = result.stdout.str()
    assert "conformance: -n auto: the 20 checks run in this process" in out  # 1 file × 20 providers
    assert "created:" not in out  # no "created: N/N workers" line
    result.assert_outcomes(passed=1, skipped=19)


def test_auto_is_xdists_when_other_tests_are_selected_or_the_count_is_set(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_theirs="def test_theirs():\n    pass\n")
    result = project.runpytest_subprocess("-n", "auto", "-p", "no:randomly")
    assert "conformance: -n auto" not in result.stdout.str()
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")
    result = project.runpytest_subprocess("-m", "provider", "-n", "auto", "-p", "no:randomly")
    assert "conformance: -n auto" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*created: 2/2 workers*"])


def _layered_over_the_bundled_data(pytester: pytest.Pytester) -> None:
    root = pytester.path / "mine"
    (root / "scenarios").mkdir(parents=True)
    (root / "conformance.yaml").write_text("bundled: true\n")
    pytester.makeini(BASE_INI + "conformance_root = mine\n")


def _matrix(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text())
    data.pop("generated_at")
    return data


def test_auto_runs_a_large_run_ahead_in_forked_processes_with_the_same_matrix(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    if cpus() < 2:
        pytest.skip("one CPU: -n auto runs the checks in this process")
    _layered_over_the_bundled_data(pytester)
    args = ["-m", "provider", "-p", "no:randomly", "--conformance-provider", "openai", "--conformance-provider"]
    args += ["anthropic", "mine"]
    one = pytester.runpytest_subprocess(*args, "--conformance-html", "one")
    auto = pytester.runpytest_subprocess(*args, "-n", "auto", "--conformance-html", "auto")
    assert one.ret == auto.ret == 0
    assert "forked processes" in auto.stdout.str() and "created:" not in auto.stdout.str()
    assert _matrix(pytester.path / "one" / "matrix.json") == _matrix(pytester.path / "auto" / "matrix.json")
    counts = [re.search(r"\d+ passed, \d+ skipped", r.stdout.str()) for r in (one, auto)]
    assert counts[0] is not None and counts[1] is not None and counts[0].group() == counts[1].group()


# the whole corpus on one worker ---------------------------------------------------------------------


def test_whole_corpus_rows_run_on_one_worker(pytester: pytest.Pytester) -> None:
    """handoff and generated rows read every provider's cassettes: each worker running one would
    decode them all again."""
    pytest.importorskip("xdist")
    _layered_over_the_bundled_data(pytester)
    result = pytester.runpytest_subprocess(
        "-m", "provider", "-n", "2", "-v", "-p", "no:randomly", "--conformance-provider", "openai", "mine"
    )
    assert result.ret == 0
    ran = [line for line in result.stdout.lines if re.match(r"\[gw\d\] ", line)]
    corpus = [line for line in ran if re.search(r"::(handoff|generated)\w*\[", line)]
    assert len(corpus) >= 3
    (worker,) = {line.split()[0] for line in corpus}
    first = [line for line in ran if line.startswith(worker)][: len(corpus)]
    assert first == corpus  # they lead the collection, so xdist's first batch holds them all


# assertion rewriting --------------------------------------------------------------------------------

LOADERS = """
import sys

from _pytest.assertion.rewrite import AssertionRewritingHook


def test_loaders():
    import conformance.harness.checks.generated
    import hypothesis

    rewritten = [
        name
        for name in ("conformance.harness", "conformance.harness.checks.generated", "hypothesis")
        if isinstance(sys.modules[name].__loader__, AssertionRewritingHook)
    ]
    assert rewritten == []
"""


def test_no_harness_module_is_rewritten_by_pytest(project: pytest.Pytester) -> None:
    """pytest rewrites every module of a plugin's distribution; uncached (PYTHONDONTWRITEBYTECODE)
    that cost each process, each xdist worker included, about a second."""
    project.makepyfile(test_loaders=LOADERS)
    result = project.runpytest_subprocess("test_loaders.py", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
