"""Runtimes side by side in the terminal: one rich table, one mark per runtime in every cell.

Marks read left to right in the order the matrices were given; rows where the runtimes disagree
are flagged `≠` and listed below the table with each runtime's verdict and reason.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from conformance.report.compare import NOT_RUN, Comparison, Spot, explaining, grouped_rows
from conformance.report.matrix import VERDICTS, Cell
from conformance.report.terminal import SYMBOLS

RAN = ("pass", "fail", "error")


def mark(cell: Cell | None) -> Text:
    """`✓2/2`, `✗1/2`, `–`, …; `×` where the runtime did not run this cell."""
    if cell is None:
        return Text("×", style="dim italic")
    symbol, style = SYMBOLS[cell.verdict]
    if cell.verdict in RAN:
        ran = sum(cell.counts.get(v, 0) for v in RAN)
        return Text(f"{symbol}{cell.counts.get('pass', 0)}/{ran}", style=style)
    return Text(symbol, style=style)


def spot_text(spot: Spot | None) -> Text:
    if spot is None:
        return Text("")
    text = Text(" ").join(mark(c) for c in spot.cells)
    if spot.disagree:
        text.stylize("underline")
    return text


class CompareTable:
    """The comparison as a renderable: the table, the runtimes' counts, and the disagreements."""

    def __init__(self, comparison: Comparison, *, details: bool = True) -> None:
        self.comparison = comparison
        self.details = details

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        cmp = self.comparison
        labels = [s.label for s in cmp.sides]
        # names come from the matrices: Text, never markup
        table = Table(title=Text("conformance comparison — " + " | ".join(labels)), header_style="bold")
        table.add_column("feature", no_wrap=True)
        for provider in cmp.providers:
            table.add_column(Text(provider), justify="center", no_wrap=True)
        group = None
        for row in grouped_rows(cmp.features):
            if row.group != group:
                group = row.group
                table.add_row(Text(group, style="bold cyan"), *["" for _ in cmp.providers])
            spots = [cmp.spot(p, row.id) for p in cmp.providers]
            differs = any(s is not None and s.disagree for s in spots)
            name = Text("≠ ", style="bold yellow") if differs else Text("  ")
            name.append(row.id)
            table.add_row(name, *[spot_text(s) for s in spots])
        yield table
        yield Text(
            "marks per cell, left to right: " + ", ".join(f"{i + 1}. {label}" for i, label in enumerate(labels)),
            style="dim",
        )
        yield Text("✓ pass  ✗ fail  ! error  – unsupported  · missing  ○ skipped  × not run", style="dim")
        for i, side in enumerate(cmp.sides):
            counts = cmp.counts(i)
            parts = [f"{counts[v]} {v}" for v in VERDICTS if counts[v]]
            if counts[NOT_RUN]:
                parts.append(f"{counts[NOT_RUN]} {NOT_RUN}")
            line = Text(f"{side.label}", style="bold")
            line.append(f" ({side.path}): cells " + ", ".join(parts or ["none"]), style="")
            yield line
        differ = cmp.disagreements()
        if not differ:
            yield Text(f"the runtimes agree on every cell ({len(cmp.spots)} compared)", style="green")
            return
        yield Text(f"≠ {len(differ)} of {len(cmp.spots)} cells disagree", style="bold yellow")
        if not self.details:
            return
        for spot in differ:
            yield Text(f"≠ {spot.feature}[{spot.provider}]", style="bold")
            for side, cell in zip(cmp.sides, spot.cells, strict=True):
                line = Text(f"    {side.label}: ")
                if cell is None:
                    line.append(NOT_RUN, style="dim italic")
                    yield line
                    continue
                symbol, style = SYMBOLS[cell.verdict]
                line.append(f"{symbol} {cell.verdict}", style=style)
                bad = explaining(cell)
                if bad is not None:
                    line.append(f" — {bad.scenario}: {bad.reason}", style="")
                yield line
