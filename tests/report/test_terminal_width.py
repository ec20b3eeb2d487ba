"""The terminal matrix fits 100 columns for every provider of the matrix; --wide prints one table."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from conformance.capabilities import matrix_providers
from conformance.report.matrix import Matrix
from conformance.report.terminal import MatrixTable, provider_chunks
from tests.report.sample import sample_matrix


def _twenty() -> Matrix:
    m = sample_matrix()
    data: dict[str, Any] = m.model_dump(mode="json")
    first = m.providers[0]
    model = [c for c in data["cells"] if c["provider"] == first]
    providers = matrix_providers()
    assert len(providers) >= 20
    data["providers"] = providers
    data["cells"] = [{**cell, "provider": p} for p in providers for cell in model]
    return Matrix.model_validate(data)


def _render(table: MatrixTable, width: int) -> str:
    console = Console(record=True, width=width, color_system=None)
    console.print(table)
    return console.export_text()


def test_twenty_providers_fit_100_columns_in_several_tables() -> None:
    m = _twenty()
    text = _render(MatrixTable(m), 100)
    table_lines = [line for line in text.splitlines() if line.startswith(("┃", "│", "┏", "┡", "└"))]
    assert table_lines and max(len(line) for line in table_lines) <= 100
    chunks = provider_chunks(m, 100)
    assert len(chunks) > 1 and [p for chunk in chunks for p in chunk] == m.providers
    assert f"(1/{len(chunks)})" in text and f"({len(chunks)}/{len(chunks)})" in text
    for provider in m.providers:  # every column is printed, none cut to an ellipsis
        assert provider in text


def test_wide_prints_one_table() -> None:
    m = _twenty()
    text = _render(MatrixTable(m, width=None), 400)
    assert "(1/" not in text
    header = next(line for line in text.splitlines() if "feature" in line)
    assert all(p in header for p in m.providers)
    assert len(header) > 100


def test_a_narrow_console_splits_further() -> None:
    m = _twenty()
    assert len(provider_chunks(m, 60)) > len(provider_chunks(m, 100))
    text = _render(MatrixTable(m), 60)
    assert max(len(line) for line in text.splitlines() if line.startswith("│")) <= 60
