"""The matrix as a rich table: features as rows (grouped), providers as columns.

✓ pass, ✗ fail, ! error, – unsupported (reason in the cell list), · no cassette, ○ skipped.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from conformance.jsonvalue import printable
from conformance.report.matrix import Cell, Matrix, Verdict

SYMBOLS: dict[Verdict, tuple[str, str]] = {
    "pass": ("✓", "green"),
    "fail": ("✗", "bold red"),
    "error": ("!", "bold magenta"),
    "unsupported": ("–", "dim"),
    "missing": ("·", "yellow"),
    "skipped": ("○", "cyan"),
    "not_offered": ("–", "bright_black"),
}


def cell_text(cell: Cell | None) -> Text:
    if cell is None:
        return Text("")
    symbol, style = SYMBOLS[cell.verdict]
    total = sum(cell.counts.values())
    passed = cell.counts.get("pass", 0)
    label = f"{symbol} {passed}/{total}" if cell.verdict in ("pass", "fail", "error") else symbol
    return Text(label, style=style)


WIDTH = 100
"""The widest the matrix prints by default; wider grids are split into tables of fewer providers."""


def provider_chunks(m: Matrix, width: int | None = WIDTH) -> list[list[str]]:
    """The providers in groups whose tables fit `width` columns (one group when `width` is None)."""
    if width is None or not m.providers:
        return [list(m.providers)]
    first = max((len(row.id) + 2 for row in m.features), default=7) + 4  # the indent, padding and borders
    chunks: list[list[str]] = [[]]
    used = first
    for provider in m.providers:
        marks = max((len(cell_text(m.cell(provider, row.id)).plain) for row in m.features), default=1)
        need = max(len(provider), marks) + 3  # cell padding and the border
        if chunks[-1] and used + need > width:
            chunks.append([])
            used = first
        chunks[-1].append(provider)
        used += need
    return chunks


class MatrixTable:
    """A renderable over the matrix data (the matrix stays plain data).

    It fits `width` columns (default 100, or the console's when narrower) by splitting the providers
    into several tables with the same rows; `width=None` prints one table however wide."""

    def __init__(self, matrix: Matrix, *, details: bool = True, width: int | None = WIDTH) -> None:
        self.matrix = matrix
        self.details = details
        self.width = width

    def _table(self, providers: list[str], title: str) -> Table:
        m = self.matrix
        # names come from the matrix (a project's own features and groups too): Text, never markup
        table = Table(title=Text(title), show_lines=False, header_style="bold")
        table.add_column("feature", no_wrap=True)
        for provider in providers:
            table.add_column(Text(provider), justify="center", no_wrap=True)
        group = None
        for row in m.features:
            if row.group != group:
                group = row.group
                table.add_row(Text(group, style="bold cyan"), *["" for _ in providers])
            table.add_row(Text("  " + row.id), *[cell_text(m.cell(p, row.id)) for p in providers])
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        m = self.matrix
        width = None if self.width is None else min(self.width, options.max_width)
        chunks = provider_chunks(m, width)
        title = f"conformance matrix — runtime: {printable(m.runtime)}"
        for i, providers in enumerate(chunks):
            part = f" ({i + 1}/{len(chunks)})" if len(chunks) > 1 else ""
            yield self._table(providers, title + part)
        counts = m.counts
        yield Text(
            f"cells: {counts.get('pass', 0)} passed, {counts.get('fail', 0)} failed, "
            f"{counts.get('error', 0)} errors, {counts.get('unsupported', 0)} unsupported, "
            f"{counts.get('missing', 0)} missing, {counts.get('skipped', 0)} skipped"
            + (f", {counts['not_offered']} not offered" if counts.get("not_offered") else "")
        )
        sc = m.scenario_counts
        yield Text(
            f"scenarios: {sc.get('pass', 0)} passed, {sc.get('fail', 0)} failed, "
            f"{sc.get('error', 0)} errors, {sc.get('unsupported', 0)} unsupported, "
            f"{sc.get('missing', 0)} missing, {sc.get('skipped', 0)} skipped"
            + (f", {sc['not_offered']} not offered" if sc.get("not_offered") else ""),
            style="yellow" if sc.get("missing", 0) else "",
        )
        defects, gaps = m.defects, m.gaps
        if sum(defects.values()) or sum(gaps.values()):
            yield Text(
                f"runtime {printable(m.runtime)}: {sum(defects.values())} defects ({defects.get('wrong', 0)} wrong, "
                f"{defects.get('extra', 0)} extra, {defects.get('crash', 0)} crashes), {sum(gaps.values())} gaps "
                f"({gaps.get('missing', 0)} missing, {gaps.get('not_offered', 0)} not offered)"
            )
        ev = m.evidence_counts
        yield Text(
            f"evidence: {ev.get('real', 0)} cells backed by public real recordings, "
            f"{ev.get('authored', 0)} by authored cassettes alone"
        )
        if self.details:
            for cell in m.cells:
                for res in cell.results:
                    if res.verdict in ("fail", "error"):
                        symbol, style = SYMBOLS[res.verdict]
                        yield Text(f"{symbol} {res.scenario}[{res.provider}]: {printable(res.reason)}", style=style)
