"""Runtimes side by side as one self-contained HTML page (`compare.html.j2`).

The same rules as the report page (`html.py`): autoescaped templates, inline styles and script,
CSP `default-src 'none'`, and untrusted text carried to the script only as a JSON island that it
writes with `textContent`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.fileio import atomic_write
from conformance.report.compare import NOT_RUN, Comparison, Spot, explaining, grouped_rows
from conformance.report.html import ENV, RAN, SYMBOLS, when
from conformance.report.matrix import VERDICTS, Cell, FeatureRow


def mark_label(cell: Cell | None) -> tuple[str, str]:
    """(verdict shown, count shown) for one runtime's mark: `("fail", "1/2")`, `("not run", "")`."""
    if cell is None:
        return NOT_RUN, ""
    if cell.verdict in RAN:
        ran = sum(cell.counts.get(v, 0) for v in RAN)
        return cell.verdict, f"{cell.counts.get('pass', 0)}/{ran}"
    return cell.verdict, ""


def mark_title(label: str, cell: Cell | None) -> str:
    """The tooltip of one runtime's mark: its verdict, and the reason when it did not pass."""
    verdict, count = mark_label(cell)
    text = f"{label}: {verdict}" + (f" {count}" if count else "")
    why = explaining(cell) if cell is not None else None
    return f"{text} — {why.scenario}: {why.reason}" if why is not None and why.reason else text


def _data(cmp: Comparison) -> dict[str, Any]:
    """What the drill-down needs: per spot, each runtime's verdict, counts and results."""
    return {
        "symbols": SYMBOLS,
        "runtimes": [{"label": s.label, "path": str(s.path), "runtime": s.matrix.runtime} for s in cmp.sides],
        "spots": {
            spot.key: {
                "provider": spot.provider,
                "feature": spot.feature,
                "disagree": spot.disagree,
                "scenarios": [list(k) for k in spot.scenarios()],
                "cells": [
                    None
                    if c is None
                    else {
                        "verdict": c.verdict,
                        "counts": c.counts,
                        "results": [r.model_dump(mode="json") for r in c.results],
                    }
                    for c in spot.cells
                ],
            }
            for spot in cmp.spots.values()
        },
    }


def _groups(cmp: Comparison) -> list[tuple[str, list[FeatureRow]]]:
    groups: dict[str, list[FeatureRow]] = {}
    for row in grouped_rows(cmp.features):
        groups.setdefault(row.group, []).append(row)
    return list(groups.items())


def _aria(spot: Spot, labels: list[str]) -> str:
    parts = [f"{spot.feature} on {spot.provider}"]
    for label, cell in zip(labels, spot.cells, strict=True):
        verdict, count = mark_label(cell)
        parts.append(f"{label}: {verdict}" + (f" {count}" if count else ""))
    if spot.disagree:
        parts.append("runtimes disagree")
    return ", ".join(parts)


def render_compare_html(cmp: Comparison) -> str:
    labels = [s.label for s in cmp.sides]
    differ = cmp.disagreements()
    disagree_rows = {s.feature for s in differ}
    return ENV.get_template("compare.html.j2").render(
        cmp=cmp,
        labels=labels,
        groups=_groups(cmp),
        symbols=SYMBOLS,
        verdicts=VERDICTS,
        not_run=NOT_RUN,
        counts=[cmp.counts(i) for i in range(len(cmp.sides))],
        differ=differ,
        disagree_rows=disagree_rows,
        mark_label=mark_label,
        mark_title=mark_title,
        when=when,
        aria={key: _aria(spot, labels) for key, spot in cmp.spots.items()},
        data=_data(cmp),
        version=cmp.sides[0].matrix.harness_version if cmp.sides else "",
    )


def write_compare_html(cmp: Comparison, path: Path) -> Path:
    """Write the comparison page to `path` atomically; returns it."""
    return atomic_write(path, render_compare_html(cmp))
