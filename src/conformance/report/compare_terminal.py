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
from conformance.report.terminal import ANSWERED, SYMBOLS, fraction

RAN = ANSWERED


def mark(cell: Cell | None) -> Text:
    """`✓2/2`, `✗1/2`, `–`, …; `×` where the runtime did not run this cell."""
    if cell is None:
        return Text("×", style="dim italic")
    symbol, style = SYMBOLS[cell.verdict]
    if cell.verdict in RAN:
        return Text(f"{symbol}{fraction(cell)}", style=style)
    return Text(symbol, style=style)


def spot_text(spot: Spot | None) -> Text:
    if spot is None:
        return Text("")
    text = Text(" ").join(mark(c) for c in spot.cells)
    if spot.disagree:
        text.stylize("underline")
    return text


WIDTH = 100
"""The widest the comparison prints; a grid wider than this is split into several tables of providers."""


def _column_width(cmp: Comparison, provider: str) -> int:
    marks = max((len(spot_text(cmp.spot(provider, row.id)).plain) for row in cmp.features), default=1)
    return max(len(provider), marks) + 3  # cell padding and the border


def provider_chunks(cmp: Comparison, width: int = WIDTH) -> list[list[str]]:
    """The providers in groups whose tables fit `width` columns (at least one provider a table)."""
    first = max((len(row.id) for row in cmp.features), default=7) + 6
    chunks: list[list[str]] = [[]]
    used = first
    for provider in cmp.providers:
        need = _column_width(cmp, provider)
        if chunks[-1] and used + need > width:
            chunks.append([])
            used = first
        chunks[-1].append(provider)
        used += need
    return chunks


class CompareTable:
    """The comparison as a renderable: the table, the runtimes' counts, and the disagreements."""

    def __init__(self, comparison: Comparison, *, details: bool = True, width: int = WIDTH) -> None:
        self.comparison = comparison
        self.details = details
        self.width = width

    def _table(self, providers: list[str], title: str) -> Table:
        cmp = self.comparison
        # names come from the matrices: Text, never markup
        table = Table(title=Text(title), header_style="bold")
        table.add_column("feature", no_wrap=True)
        for provider in providers:
            table.add_column(Text(provider), justify="center", no_wrap=True)
        group = None
        for row in grouped_rows(cmp.features):
            spots = [cmp.spot(p, row.id) for p in providers]
            if all(s is None for s in spots):
                continue
            if row.group != group:
                group = row.group
                table.add_row(Text(group, style="bold cyan"), *["" for _ in providers])
            differs = any(s is not None and s.disagree for s in spots)
            name = Text("≠ ", style="bold yellow") if differs else Text("  ")
            name.append(row.id)
            table.add_row(name, *[spot_text(s) for s in spots])
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        cmp = self.comparison
        labels = [s.label for s in cmp.sides]
        title = "conformance comparison — " + " | ".join(labels)
        chunks = provider_chunks(cmp, min(self.width, options.max_width))
        for i, providers in enumerate(chunks):
            part = f" ({i + 1}/{len(chunks)})" if len(chunks) > 1 else ""
            yield self._table(providers, title + part)
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
        differ, apart = cmp.disagreements(), cmp.apart()
        if apart:
            yield Text(
                f"{len(apart)} cells answered by some runtimes only (the others skipped them, do not offer them, "
                "or have no evidence): listed in the HTML page, not disagreements",
                style="dim",
            )
        if not differ:
            yield Text(f"the runtimes agree on every cell they all answered ({len(cmp.spots)} compared)", style="green")
            return
        yield Text(f"≠ {len(differ)} of {len(cmp.spots)} cells disagree", style="bold yellow")
        if not self.details:
            return
        for spot in differ:
            head = Text(f"≠ {spot.feature}[{spot.provider}]", style="bold")
            first = spot.first_difference()
            if first is not None:
                head.append(f"  first difference: {first[0]}: {first[1]}", style="")
            yield head
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
