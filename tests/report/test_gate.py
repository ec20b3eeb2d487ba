"""The release gate per scenario × provider: every broken scenario counted (a cell hides how many),
the provider always printed (never swallowed as markup), improvements shown, JSON and GitHub output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.report.gate import compare_runs, github_annotations, render_text, scenario_paths
from conformance.report.matrix import Cell, Matrix, RealCall, RealColumn, RealTraffic
from tests.report.sample import cell, result, sample_matrix


def _with(matrix: Matrix, *cells: Cell) -> Matrix:
    replaced = {(c.provider, c.feature) for c in cells}
    keep = [c for c in matrix.cells if (c.provider, c.feature) not in replaced]
    return matrix.model_copy(update={"cells": [*keep, *cells]})


def test_every_scenario_is_counted_not_every_cell() -> None:
    """Six scenarios of one feature break on openai: one red cell, six regressions."""
    old = [result("openai", "tool_call", f"tool_{i}", "pass") for i in range(6)]
    new = [result("openai", "tool_call", f"tool_{i}", "fail", reason=f"1 difference\nmore {i}") for i in range(6)]
    before = _with(sample_matrix(), cell("openai", "tool_call", *old))
    after = _with(sample_matrix(), cell("openai", "tool_call", *new))
    gate = compare_runs(before, after)
    assert [c.label for c in gate.regressions] == [f"tool_{i}[openai]" for i in range(6)]
    assert {(c.before, c.after, c.reason) for c in gate.regressions} == {("pass", "fail", "1 difference")}
    back = compare_runs(after, before)
    assert len(back.improvements) == 6 and not back.regressions


def test_gone_passing_results_regress_and_new_passing_ones_improve() -> None:
    before = sample_matrix()
    after = _with(before, cell("openai", "text", result("openai", "text", "text_other", "pass")))
    gate = compare_runs(before, after)
    assert [(c.label, c.before, c.after) for c in gate.regressions] == [("text_basic[openai]", "pass", None)]
    assert [(c.label, c.before, c.after) for c in gate.improvements] == [("text_other[openai]", None, "pass")]


def test_text_keeps_the_provider_in_brackets(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    sample_matrix().save(old)
    sample_matrix(stream_text_openai="fail").save(new)
    args = ["report", "--input", str(new), "--previous", str(old), "--out", str(tmp_path / "site")]
    assert main([*args, "--fail-on-regression"]) == 1
    out = capsys.readouterr().out
    assert "regressed: stream_multibyte[openai] (stream_text): pass → fail" in out
    assert "1 scenario result regressed, 0 improved" in out
    assert main(["report", "--input", str(old), "--previous", str(new), "--out", str(tmp_path / "site")]) == 0
    assert "improved: stream_multibyte[openai] (stream_text): fail → pass" in capsys.readouterr().out


def test_json_and_github_formats(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    sample_matrix().save(old)
    sample_matrix(stream_text_openai="fail").save(new)
    base = ["report", "--input", str(new), "--previous", str(old), "--out", str(tmp_path / "site")]
    assert main([*base, "--format", "json", "--fail-on-regression"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"] == {"regressions": 1, "improvements": 0}
    assert doc["regressions"][0] | {"reason": ""} == {
        "scenario": "stream_multibyte",
        "provider": "openai",
        "feature": "stream_text",
        "before": "pass",
        "after": "fail",
        "reason": "",
    }
    assert main([*base, "--format", "github"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(
        "::error file=scenarios/stream_text/stream_multibyte.yaml,title=regressed%3A stream_multibyte[openai]::"
    )
    assert "\n" not in line and "<script>" in line  # workflow commands are plain text; newlines escaped


def test_annotation_escaping() -> None:
    before = sample_matrix()
    after = _with(before, cell("openai", "text", result("openai", "text", "text_basic", "fail", reason="a%b\r\nc")))
    gate = compare_runs(before, after)
    (line,) = github_annotations(gate, scenario_paths(after))
    assert line.endswith("text_basic[openai] (text): pass → fail — a%25b")
    assert render_text(gate)[-1] == "1 scenario result regressed, 0 improved"


def _real(matrix: Matrix, *verdicts: str) -> Matrix:
    traffic = RealTraffic()
    for verdict in verdicts:
        traffic.add(verdict, RealCall(call="openai/x.yaml#0", verdict="fail") if verdict == "fail" else None)
    return matrix.model_copy(update={"real_traffic": [RealColumn(provider="openai", traffic=traffic)]})


def test_a_column_whose_real_traffic_breaks_regresses_as_its_pytest_item() -> None:
    before, after = _real(sample_matrix(), "pass", "pass"), _real(sample_matrix(), "pass", "fail")
    gate = compare_runs(before, after)
    assert [(c.label, c.before, c.after, c.reason) for c in gate.regressions] == [
        ("real[openai]", "pass", "fail", "real traffic: 2 calls, 1 pass, 1 fail")
    ]
    assert [c.label for c in compare_runs(after, before).improvements] == ["real[openai]"]
    assert not compare_runs(sample_matrix(), after).regressions  # a run without real traffic is no baseline for it
