"""The published HTML report: one self-contained page rendered from `matrix.json`.

Jinja2 templates with autoescaping; styles and script are inline and nothing is fetched, so the
page works from `file://` and on any static host. Everything that comes from scenarios and
cassettes is untrusted text: it reaches the page escaped by the template, or as JSON through
`tojson` (which escapes `<`, `>`, `&` and `'`), and the script only ever writes it with
`textContent`.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from conformance.report.matrix import Matrix
from conformance.report.regress import Change, improvements, regressions
from conformance.scenarios.catalog import GROUPS

SYMBOLS = {"pass": "✓", "fail": "✗", "error": "!", "unsupported": "–", "missing": "·", "skipped": "○"}

_ENV = Environment(
    loader=PackageLoader("conformance.report", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)

__all__ = ["Change", "regressions", "render_html", "write_html"]


def _groups(matrix: Matrix) -> list[tuple[str, list[Any]]]:
    order = {g: i for i, g in enumerate(GROUPS)}
    groups: dict[str, list[Any]] = {}
    for row in matrix.features:
        groups.setdefault(row.group, []).append(row)
    return sorted(groups.items(), key=lambda kv: order.get(kv[0], len(order)))


def _cell_data(matrix: Matrix) -> dict[str, Any]:
    """What the drill-down needs, keyed `provider/feature`."""
    return {
        f"{c.provider}/{c.feature}": {
            "provider": c.provider,
            "feature": c.feature,
            "verdict": c.verdict,
            "results": [r.model_dump(mode="json") for r in c.results],
        }
        for c in matrix.cells
    }


def render_html(matrix: Matrix, *, previous: Matrix | None = None) -> str:
    worse = regressions(previous, matrix) if previous is not None else []
    better = improvements(previous, matrix) if previous is not None else []
    scenario_counts = Counter(r.verdict for c in matrix.cells for r in c.results)
    template = _ENV.get_template("report.html.j2")
    return template.render(
        m=matrix,
        groups=_groups(matrix),
        cells={(c.provider, c.feature): c for c in matrix.cells},
        symbols=SYMBOLS,
        data={"cells": _cell_data(matrix), "regressed": [f"{c.provider}/{c.feature}" for c in worse]},
        regressed={(c.provider, c.feature): c for c in worse},
        worse=worse,
        better=better,
        previous=previous,
        scenario_counts=scenario_counts,
    )


def write_html(matrix: Matrix, out_dir: Path, *, previous: Matrix | None = None) -> Path:
    """Write `out_dir/index.html` atomically; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "index.html"
    fd, tmp = tempfile.mkstemp(prefix=".index.", suffix=".html", dir=out_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(render_html(matrix, previous=previous))
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; the file is meant to be shared
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
