"""matrix.json → HTML: counts, structure, drill-down data, regressions, and escaping."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conformance.cli import main
from conformance.report.html import render_html, write_html
from conformance.report.regress import improvements, regressions
from tests.report.sample import IMG, SCRIPT, sample_matrix


def test_summary_counts_and_structure() -> None:
    html = render_html(sample_matrix(stream_text_openai="fail"))
    assert re.search(r'data-count="pass">5<', html)
    assert re.search(r'data-count="fail">1<', html)
    assert re.search(r'data-count="unsupported">1<', html)
    assert re.search(r'data-count="missing">1<', html)
    assert re.search(r'data-count="error">1<', html)
    assert re.findall(r'<tbody data-group="([^"]+)"', html) == ["responses", "streaming", "thinking"]
    assert html.count('<button type="button" class="cell') == 9
    assert 'aria-label="stream_text on openai: fail, 1 of 2 scenarios passed"' in html
    assert "runtime under test <code>reference</code>" in html


def test_cells_are_labelled_not_only_coloured() -> None:
    html = render_html(sample_matrix())
    assert '<span class="sym">✓</span> pass <span class="count">1/1</span>' in html
    assert '<span class="sym">–</span> unsupported' in html
    assert '<span class="sym">·</span> missing' in html


def test_drill_down_data_is_embedded_as_json() -> None:
    html = render_html(sample_matrix(stream_text_openai="fail"))
    raw = re.search(r'<script type="application/json" id="matrix-data">(.*?)</script>', html, re.S)
    assert raw is not None
    data = json.loads(raw.group(1))
    (failed,) = [r for r in data["cells"]["openai/stream_text"]["results"] if r["verdict"] == "fail"]
    assert failed["diff"][0]["path"] == "message.content[0].text"
    assert failed["cassette"] == "cassettes/openai/stream_multibyte.yaml"
    assert failed["expected"]["message"]["content"][0]["text"] == "café ☕"


def test_canaries_never_appear_unescaped() -> None:
    html = render_html(sample_matrix(stream_text_openai="fail"))
    assert SCRIPT not in html
    assert IMG not in html
    assert "<img" not in html
    assert html.count("<script") == 2  # the data island and the page's own script
    assert "&lt;script&gt;" in html  # escaped where rendered as text


def test_regressions_between_runs() -> None:
    before = sample_matrix()
    after = sample_matrix(stream_text_openai="fail")
    (change,) = regressions(before, after)
    assert (change.provider, change.feature, change.before, change.after) == ("openai", "stream_text", "pass", "fail")
    assert regressions(after, before) == []
    assert [(c.feature, c.after) for c in improvements(after, before)] == [("stream_text", "pass")]
    html = render_html(after, previous=before)
    assert "▼ 1 cell regressed since 2026-11-22T12:00:00+00:00" in html
    assert "▼ was pass" in html
    assert "No cell regressed" in render_html(before, previous=before)


def test_write_is_atomic_and_readable(tmp_path: Path) -> None:
    path = write_html(sample_matrix(), tmp_path / "out")
    assert path == tmp_path / "out" / "index.html"
    assert path.stat().st_mode & 0o644 == 0o644
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["index.html"]


def test_report_command_and_release_gate(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    sample_matrix().save(old)
    sample_matrix(stream_text_openai="fail").save(new)
    out = tmp_path / "site"
    assert main(["report", "--input", str(new), "--out", str(out)]) == 0
    assert (out / "index.html").is_file()
    assert main(["report", "--input", str(new), "--previous", str(old), "--out", str(out)]) == 0
    assert main(["report", "--input", str(new), "--previous", str(old), "--out", str(out), "--fail-on-regression"]) == 1
    assert main(["report", "--input", str(old), "--previous", str(old), "--out", str(out), "--fail-on-regression"]) == 0
    assert main(["report", "--input", str(tmp_path / "nope.json")]) == 2


def test_no_network_references() -> None:
    html = render_html(sample_matrix())
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert "default-src 'none'" in html
