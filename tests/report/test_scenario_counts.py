"""Scenario-level counts beside the cell counts: a passing cell that misses scenarios shows."""

from __future__ import annotations

from rich.console import Console

from conformance.report.html import render_html
from conformance.report.matrix import Matrix
from conformance.report.terminal import MatrixTable
from tests.report.sample import sample_matrix


def test_a_passing_cell_with_a_missing_scenario_counts_it() -> None:
    m = sample_matrix()
    gemini = m.cell("gemini", "error_overloaded")
    assert gemini is not None and gemini.verdict == "pass"  # the cell alone hides the missing one
    assert gemini.counts == {"pass": 1, "missing": 1}
    for verdict in ("pass", "missing", "error"):
        assert m.scenario_counts[verdict] == sum(c.counts.get(verdict, 0) for c in m.cells)
    assert m.scenario_counts["missing"] > m.counts.get("missing", 0)


def test_matrix_json_keeps_the_counts_and_older_files_get_them() -> None:
    m = sample_matrix()
    again = Matrix.model_validate_json(m.model_dump_json())
    assert again.scenario_counts == m.scenario_counts
    older = m.model_dump()
    del older["scenario_counts"]
    assert Matrix.model_validate(older).scenario_counts == m.scenario_counts


def test_terminal_and_html_show_scenario_counts() -> None:
    m = sample_matrix()
    console = Console(record=True, width=200)
    console.print(MatrixTable(m))
    text = console.export_text()
    missing = m.scenario_counts["missing"]
    assert "cells: " in text and f"{missing} missing" in text.split("scenarios: ")[1]
    assert f'data-scenario-count="missing">{missing}<' in render_html(m)
