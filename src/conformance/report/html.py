"""The published HTML report: one self-contained page rendered from `matrix.json`.

Jinja2 templates with autoescaping; styles and script are inline and nothing is fetched, so the
page works from `file://` and on any static host. Everything that comes from scenarios and
cassettes is untrusted text: it reaches the page escaped by the template, or as JSON in a
`<script type="application/json">` island (see `json_island`), which the script reads with
`JSON.parse` and only ever writes with `textContent`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from conformance.fileio import atomic_write
from conformance.report.matrix import VERDICTS, Cell, FeatureRow, Matrix, Verdict
from conformance.report.regress import RANK, Change, improvements, regressions
from conformance.scenarios.catalog import GROUPS

__all__ = ["Change", "json_island", "regressions", "render_html", "write_html"]

SYMBOLS: dict[Verdict, str] = {
    "pass": "✓",
    "fail": "✗",
    "error": "!",
    "unsupported": "–",
    "missing": "·",
    "skipped": "○",
    "not_offered": "–",
    "policy": "≈",
}
RAN: tuple[Verdict, ...] = ("pass", "fail", "error")
"""Verdicts of scenarios that really ran; a cell's pass count is over these."""

_JSON_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("'", "\\u0027"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def json_island(data: Any) -> Markup:
    """JSON for a `<script type="application/json">` element: no `</script>`, `<!--` or line
    separators can survive, so the text can neither close the element nor be read as markup."""
    try:
        text = orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):  # lone surrogates, integers beyond 64 bits
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    for char, escape in _JSON_ESCAPES:  # one C-speed pass per character beats str.translate on megabytes
        text = text.replace(char, escape)
    return Markup(text)  # safe: every character that could end the element is escaped


ENV = Environment(
    loader=PackageLoader("conformance.report", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
ENV.filters["json_island"] = json_island
"""The report templates' environment (the comparison page renders from it too)."""


@dataclass(frozen=True)
class CellView:
    """What one matrix button shows and says."""

    cell: Cell
    passed: int
    ran: int
    others: list[tuple[Verdict, int]]
    """Scenarios that did not run (missing, unsupported, skipped), shown apart from the count."""
    regression: Change | None

    @property
    def key(self) -> str:
        return f"{self.cell.provider}/{self.cell.feature}"

    @property
    def label(self) -> str:
        c = self.cell
        parts = [f"{c.feature} on {c.provider}: {c.verdict}"]
        if self.ran:
            parts.append(f"{self.passed} of {self.ran} scenarios passed")
        parts += [f"{n} {v}" for v, n in self.others]
        if self.regression is not None:
            parts.append(f"regressed, was {self.regression.before}")
        if c.real is not None:
            parts.append(real_words(c))
        return ", ".join(parts)


def real_words(cell: Cell) -> str:
    """What backs a cell, in words: real recordings (how many, from where) or authored cassettes alone."""
    real = cell.real
    if real is None:
        return "authored cassettes alone"
    plural = "s" if real.recordings != 1 else ""
    words = f"backed by {real.recordings} real recording{plural} from {', '.join(real.sources)}"
    return words if real.traffic is None else f"{words}; real traffic: {real.traffic.summary()}"


def _cell_view(cell: Cell, regression: Change | None) -> CellView:
    ran = sum(cell.counts.get(v, 0) for v in RAN)
    others = [(v, cell.counts[v]) for v in VERDICTS if v not in RAN and cell.counts.get(v)]
    return CellView(cell, cell.counts.get("pass", 0), ran, others, regression)


def _groups(matrix: Matrix) -> list[tuple[str, list[FeatureRow]]]:
    order = {g: i for i, g in enumerate(GROUPS)}
    groups: dict[str, list[FeatureRow]] = {}
    for row in matrix.features:
        groups.setdefault(row.group, []).append(row)
    return sorted(groups.items(), key=lambda kv: order.get(kv[0], len(order)))


def when(stamp: str) -> str:
    """`2026-11-22T13:19:09+00:00` → `2026-11-22 13:19 UTC`; anything else as written."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is None:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _provenance(matrix: Matrix) -> dict[str, Any]:
    def span(dates: list[str]) -> str:
        return (dates[0] if len(dates) == 1 else f"{dates[0]} – {dates[-1]}") if dates else ""

    recorded = sorted({d for p in matrix.provenance for d in p.recorded})
    authored = sorted({d for p in matrix.provenance for d in p.authored})
    return {
        "cassettes": sum(p.cassettes for p in matrix.provenance),
        "recorded": span(recorded),
        "authored": span(authored),
        "n_recorded": sum(p.evidence.get("recorded", 0) for p in matrix.provenance),
        "n_authored": sum(p.evidence.get("authored", 0) for p in matrix.provenance),
        "n_emulated": sum(p.evidence.get("emulated", 0) for p in matrix.provenance),
        "models": len({m for p in matrix.provenance for m in p.models}),
    }


def _data(matrix: Matrix, worse: list[Change]) -> dict[str, Any]:
    """What the drill-down needs, keyed `provider/feature`."""
    return {
        "symbols": SYMBOLS,
        "regressed": {f"{c.provider}/{c.feature}": c.before for c in worse},
        "cells": {
            f"{c.provider}/{c.feature}": {
                "provider": c.provider,
                "feature": c.feature,
                "verdict": c.verdict,
                "results": [r.model_dump(mode="json") for r in c.results],
                "real": c.real.model_dump(mode="json") if c.real is not None else None,
            }
            for c in matrix.cells
        },
    }


def render_html(matrix: Matrix, *, previous: Matrix | None = None) -> str:
    """The report page for `matrix`; given `previous`, cells that got worse are flagged."""
    worse = regressions(previous, matrix) if previous is not None else []
    better = improvements(previous, matrix) if previous is not None else []
    by_cell = {(c.provider, c.feature): c for c in worse}
    views = {(c.provider, c.feature): _cell_view(c, by_cell.get((c.provider, c.feature))) for c in matrix.cells}
    scenarios = Counter(r.verdict for c in matrix.cells for r in c.results)
    return ENV.get_template("report.html.j2").render(
        m=matrix,
        when=when(matrix.generated_at),
        previous_when=when(previous.generated_at) if previous is not None else "",
        groups=_groups(matrix),
        views=views,
        symbols=SYMBOLS,
        verdicts=VERDICTS,
        order=sorted(RANK, key=RANK.__getitem__),
        data=_data(matrix, worse),
        worse=worse,
        better=better,
        previous=previous,
        scenarios_passed=scenarios.get("pass", 0),
        scenarios_ran=sum(scenarios.get(v, 0) for v in RAN),
        scenarios_total=sum(scenarios.values()),
        provenance=_provenance(matrix),
        real_words=real_words,
        authored_only=[c.provider for c in matrix.real_traffic or [] if c.authored_only and c.in_matrix],
    )


def write_html(matrix: Matrix, out_dir: Path, *, previous: Matrix | None = None) -> Path:
    """Write `out_dir/index.html` atomically (a temporary file renamed over it); returns its path."""
    return atomic_write(out_dir / "index.html", render_html(matrix, previous=previous))
