"""Each cell says whether public real recordings back it, and the summaries count both kinds."""

from __future__ import annotations

import json

from rich.console import Console

from conformance.evidence.manifest import bundled_manifest
from conformance.report.backing import bundled_backing, real_backing
from conformance.report.html import render_html
from conformance.report.matrix import DiffEntry, Matrix, RealBacking, RealCall, RealColumn, RealTraffic
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


def _judged() -> Matrix:
    """The sample with real traffic: anthropic's text cell holds one failing real call among three,
    fireworks reads none (authored only)."""
    m = _backed()
    bad = RealCall(
        call="anthropic/messages/x--t.yaml#0",
        verdict="fail",
        reason="1 difference from the expected normalized form",
        diff=[DiffEntry(path="message.usage", change="removed", expected={"input_tokens": 3})],
        source="https://github.com/example/project/blob/abc/t.yaml",
        source_repo="example/project",
        license="MIT",
    )
    traffic = RealTraffic()
    traffic.add("pass", None)
    traffic.add("pass", None)
    traffic.add("fail", bad)
    cells = []
    for c in m.cells:
        if c.provider == "anthropic" and c.feature == "text" and c.real is not None:
            c = c.model_copy(update={"verdict": "fail", "real": c.real.model_copy(update={"traffic": traffic})})
        cells.append(c)
    columns = [
        RealColumn(provider="anthropic", traffic=traffic),
        RealColumn(provider="fireworks", authored_only=True),
    ]
    data = {**m.model_dump(), "cells": [c.model_dump() for c in cells], "real_traffic": columns, "counts": {}}
    return Matrix.model_validate(data)


def test_the_terminal_prints_real_traffic_per_column_and_the_authored_only_columns() -> None:
    console = Console(width=200, record=True)
    console.print(MatrixTable(_judged()))
    text = console.export_text()
    assert "real traffic: 3 calls, 2 pass, 1 fail" in text
    assert "  anthropic: 3 calls, 2 pass, 1 fail" in text
    assert "authored only (no real call): fireworks" in text
    assert "✗ real/anthropic/messages/x--t.yaml#0[anthropic]: 1 difference" in text


def test_the_html_counts_real_calls_in_the_cell_and_drills_down_to_the_failing_ones() -> None:
    m = _judged()
    html = render_html(m)
    assert '<span class="real real-red"' in html and "◆ real 2/3</span>" in html
    assert '<b data-real-count="calls">3</b> calls, <b data-real-count="pass">2</b> pass' in html
    assert "authored only: fireworks" in html
    island = json.loads(html.split('<script type="application/json" id="matrix-data">')[1].split("</script>")[0])
    traffic = island["cells"]["anthropic/text"]["real"]["traffic"]
    assert traffic["failing"][0]["source"] == "https://github.com/example/project/blob/abc/t.yaml"
    assert traffic["failing"][0]["diff"][0]["path"] == "message.usage"


def test_a_matrix_without_real_traffic_says_it_was_left_out() -> None:
    console = Console(width=200, record=True)
    console.print(MatrixTable(sample_matrix()))
    assert "real traffic: left out of this run" in console.export_text()
    assert sample_matrix().real_totals() is None
