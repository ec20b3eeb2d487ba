"""Each cell says whether public real recordings back it, and the summaries count both kinds."""

from __future__ import annotations

from rich.console import Console

from conformance.evidence.manifest import bundled_manifest
from conformance.report.backing import bundled_backing, real_backing
from conformance.report.html import render_html
from conformance.report.matrix import Matrix, RealBacking
from conformance.report.terminal import MatrixTable
from tests.report.sample import sample_matrix


def _backed() -> Matrix:
    m = sample_matrix()
    real = RealBacking(
        recordings=3,
        calls=4,
        sdk_agree=4,
        sources=["example/project"],
        files=["https://github.com/example/project/blob/abc/t.yaml"],
    )
    cells = [c.model_copy(update={"real": real}) if c.provider == "anthropic" else c for c in m.cells]
    return Matrix.model_validate({**m.model_dump(), "cells": [c.model_dump() for c in cells], "evidence_counts": {}})


def test_the_html_marks_backed_cells_and_counts_both() -> None:
    m = _backed()
    backed = sum(c.real is not None for c in m.cells)
    assert backed and m.evidence_counts == {"real": backed, "authored": len(m.cells) - backed}
    html = render_html(m)
    assert (
        html.count('<span class="real" title="backed by 3 real recordings from example/project">◆ 3 real</span>')
        == backed
    )
    assert f'<b data-evidence-count="real">{backed}</b>' in html
    assert "by authored cassettes alone" in html


def test_the_terminal_summary_counts_both() -> None:
    console = Console(width=200, record=True)
    console.print(MatrixTable(_backed()))
    m = _backed()
    assert (
        f"evidence: {m.evidence_counts['real']} cells backed by public real recordings, "
        f"{m.evidence_counts['authored']} by authored cassettes alone"
    ) in console.export_text()


def test_an_older_matrix_without_backing_counts_every_cell_authored() -> None:
    m = sample_matrix()
    assert m.evidence_counts == {"real": 0, "authored": len(m.cells)}


def test_the_bundled_manifest_backs_cells_with_their_sources() -> None:
    """No corpus needed: the committed manifest alone says which cells real traffic backs."""
    backing = bundled_backing()
    assert backing == real_backing(bundled_manifest())
    text = backing[("anthropic", "text")]
    assert text.recordings > 0 and text.sources and all(f.startswith("https://github.com/") for f in text.files)
