"""The matrix as a rich table: features as rows (grouped), providers as columns.

✓ pass, ✗ fail, ! error, – unsupported (reason in the cell list), · no cassette, ○ skipped.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

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


class MatrixTable:
    """A renderable over the matrix data (the matrix stays plain data)."""

    def __init__(self, matrix: Matrix, *, details: bool = True) -> None:
        self.matrix = matrix
        self.details = details

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        m = self.matrix
        table = Table(title=f"conformance matrix — runtime: {m.runtime}", show_lines=False, header_style="bold")
        table.add_column("feature", no_wrap=True)
        for provider in m.providers:
            table.add_column(provider, justify="center", no_wrap=True)
        group = None
        for row in m.features:
            if row.group != group:
                group = row.group
                table.add_row(Text(group, style="bold cyan"), *["" for _ in m.providers])
            table.add_row("  " + row.id, *[cell_text(m.cell(p, row.id)) for p in m.providers])
        yield table
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
                f"runtime {m.runtime}: {sum(defects.values())} defects ({defects.get('wrong', 0)} wrong, "
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
                        yield Text(f"{symbol} {res.scenario}[{res.provider}]: {res.reason}", style=style)
