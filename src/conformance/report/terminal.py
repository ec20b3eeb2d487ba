"""The matrix as a rich table: features as rows (grouped), providers as columns.

✓ pass, ✗ fail, ! error, – unsupported (reason in the cell list), · no cassette, ○ skipped,
≈ differs from the recommended policy (a policy the runtime never declared; not a fail).
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
    "policy": ("≈", "blue"),
}


def class_summary(m: Matrix) -> str:
    """One line: the results that are not green, by the class their evidence gives them."""
    c = m.class_counts
    return (
        f"evidence classes: {c.get('defect', 0)} defects, {c.get('limitation', 0)} limitations, "
        f"{c.get('policy', 0)} policy differences, {c.get('unverified', 0)} unverified "
        "(defect and limitation: sourced wire and rule; unverified: either has no source)"
    )


ANSWERED: tuple[Verdict, ...] = ("pass", "fail", "error")
"""The verdicts of rows the runtime answered: a cell's `passed/answered` counts these alone (rows
unsupported, skipped, not offered or missing are counted apart), in `run`, the report and `compare`."""


def fraction(cell: Cell) -> str:
    """`passed/answered` of a cell: its passing rows of those the runtime answered."""
    return f"{cell.counts.get('pass', 0)}/{sum(cell.counts.get(v, 0) for v in ANSWERED)}"


def cell_text(cell: Cell | None) -> Text:
    if cell is None:
        return Text("")
    symbol, style = SYMBOLS[cell.verdict]
    label = f"{symbol} {fraction(cell)}" if cell.verdict in ANSWERED else symbol
    return Text(label, style=style)


def real_lines(m: Matrix) -> list[Text]:
    """`real traffic: N calls, M pass`, then the same per column, and the columns no real call reads."""
    totals = m.real_totals()
    if totals is None or m.real_traffic is None:
        return [Text("real traffic: left out of this run", style="dim")]
    red = totals.red is not None
    lines = [Text(f"real traffic: {totals.summary()}", style="bold red" if red else "")]
    read = [c for c in m.real_traffic if not c.authored_only]
    lines += [
        Text(
            f"  {c.provider}{'' if c.in_matrix else ' (no column)'}: {c.traffic.summary()}",
            style="red" if c.traffic.red else "",
        )
        for c in read
    ]
    alone = [c.provider for c in m.real_traffic if c.authored_only]
    if alone:
        lines.append(Text(f"  authored only (no real call): {', '.join(alone)}", style="yellow"))
    return lines


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
            + (f", {counts['policy']} differing from the recommended policy" if counts.get("policy") else "")
        )
        sc = m.scenario_counts
        yield Text(
            f"scenarios: {sc.get('pass', 0)} passed, {sc.get('fail', 0)} failed, "
            f"{sc.get('error', 0)} errors, {sc.get('unsupported', 0)} unsupported, "
            f"{sc.get('missing', 0)} missing, {sc.get('skipped', 0)} skipped"
            + (f", {sc['not_offered']} not offered" if sc.get("not_offered") else "")
            + (f", {sc['policy']} differing from the recommended policy" if sc.get("policy") else ""),
            style="yellow" if sc.get("missing", 0) else "",
        )
        defects, gaps = m.defects, m.gaps
        if sum(defects.values()) or sum(gaps.values()):
            yield Text(
                f"runtime {printable(m.runtime)}: {sum(defects.values())} did something else "
                f"({defects.get('wrong', 0)} wrong, "
                f"{defects.get('extra', 0)} extra, {defects.get('crash', 0)} crashes), {sum(gaps.values())} gaps "
                f"({gaps.get('missing', 0)} missing, {gaps.get('not_offered', 0)} not offered); "
                "whether that is a defect, the evidence classes say"
            )
        classes = m.class_counts
        if sum(classes.values()):
            yield Text(class_summary(m))
        ev = m.evidence_counts
        yield Text(
            f"evidence: {ev.get('real', 0)} cells backed by public real recordings, "
            f"{ev.get('authored', 0)} by authored cassettes alone"
        )
        yield from real_lines(m)
        if self.details:
            for column in m.real_traffic or []:
                for call in column.traffic.failing:
                    symbol, style = SYMBOLS[call.verdict if call.verdict == "error" else "fail"]
                    yield Text(f"{symbol} real/{call.call}[{column.provider}]: {call.reason}", style=style)
            for cell in m.cells:
                for res in cell.results:
                    if res.verdict in ("fail", "error", "policy"):
                        symbol, style = SYMBOLS[res.verdict]
                        cls = f" ({res.evidence_class})" if res.evidence_class else ""
                        yield Text(
                            f"{symbol} {res.scenario}[{res.provider}]{cls}: {printable(res.reason)}", style=style
                        )
                        if res.evidence_class and res.verdict != "policy":
                            wire, rule = res.wire_source or "none replayed", res.rule_source or "no source"
                            yield Text(f"    wire: {wire}; rule: {rule}", style="dim")
