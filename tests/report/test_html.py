"""matrix.json → HTML: counts, structure, drill-down data, regressions, and escaping."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.report.html import json_island, render_html, write_html
from conformance.report.regress import RANK, improvements, regressions
from tests.report.sample import IMG, SCRIPT, sample_matrix


def island(html: str) -> dict[str, Any]:
    raw = re.search(r'<script type="application/json" id="matrix-data">(.*?)</script>', html, re.S)
    assert raw is not None
    data: dict[str, Any] = json.loads(raw.group(1))
    return data


def test_summary_counts_and_provenance() -> None:
    html = render_html(sample_matrix(stream_text_openai="fail"))
    counts = dict(re.findall(r'data-count="(\w+)">(\d+)<', html))
    assert counts == {"pass": "10", "fail": "1", "error": "1", "unsupported": "1", "missing": "1"}
    assert "<b>4</b> providers" in html
    assert "<b>4</b> features" in html
    assert "runtime under test <code>reference</code>" in html
    assert '<time datetime="2026-11-23T09:30:00+00:00">2026-11-23 09:30 UTC</time>' in html
    assert "conformance 0.1.0" in html
    assert (
        "Provenance: 8 cassettes from <code>cassettes</code>, 7 recorded from the live providers "
        "2026-11-20 – 2026-11-22, 1 authored (by hand or with the emulator) 2026-11-21, 2 models" in html
    )
    assert "<td>claude-sonnet-4-5</td>" in html
    assert (
        '<b data-kind-count="defects">1</b> wrong, extra or crash' in html
    )  # the stream_multibyte diff: a wrong value


def test_groups_rows_and_columns() -> None:
    html = render_html(sample_matrix())
    assert re.findall(r'<tbody data-group="([^"]+)"', html) == [
        "responses",
        "streaming",
        "thinking",
        "errors &amp; retries",
    ]
    assert re.findall(r'<tr data-feature="([^"]+)"', html) == [
        "text",
        "stream_text",
        "thinking_signature",
        "error_overloaded",
    ]
    assert re.findall(r'<th scope="col" class="provider" data-provider="([^"]+)"', html) == [
        "openai",
        "anthropic",
        "gemini",
        "ollama",
    ]
    assert html.count('<button type="button" class="cell') == 14
    assert html.count('data-verdict="none"') == 2  # ollama has no thinking or overloaded scenario


def test_cells_are_labelled_not_only_coloured() -> None:
    html = render_html(sample_matrix(stream_text_openai="fail"))
    sym = '<span class="sym" aria-hidden="true">'
    assert f'{sym}✓</span> pass <span class="count">2/2</span>' in html
    assert f'{sym}✗</span> fail <span class="count">1/2</span>' in html
    assert f"{sym}–</span> unsupported</span>" in html
    assert f"{sym}·</span> missing</span>" in html
    assert 'aria-label="stream_text on openai: fail, 1 of 2 scenarios passed"' in html
    # scenarios that did not run are shown apart from the pass count
    assert f'{sym}✓</span> pass <span class="count">1/1</span></span>' in html
    assert '<span class="others">+1 missing</span>' in html
    assert 'aria-label="error_overloaded on gemini: pass, 1 of 1 scenarios passed, 1 missing"' in html


def test_drill_down_data_is_embedded_as_json() -> None:
    data = island(render_html(sample_matrix(stream_text_openai="fail")))
    (failed,) = [r for r in data["cells"]["openai/stream_text"]["results"] if r["verdict"] == "fail"]
    assert [d["path"] for d in failed["diff"]] == ["message.content[0].text", "note", "usage"]
    assert failed["cassette"] == "cassettes/openai/stream_multibyte.yaml"
    assert failed["expected"]["message"]["content"][0]["text"] == "café ☕ naïve"
    assert failed["actual"]["message"]["content"][0]["text"].startswith("caf\ufffd")
    (unsupported,) = data["cells"]["openai/thinking_signature"]["results"]
    assert unsupported["reason"].startswith("Chat Completions returns no reasoning text")
    assert data["symbols"]["pass"] == "✓"


def test_canaries_never_appear_unescaped() -> None:
    before = sample_matrix()
    html = render_html(sample_matrix(stream_text_openai="fail"), previous=before)
    assert SCRIPT not in html
    assert IMG not in html
    assert "<img" not in html
    assert html.count("<script") == 2  # the data island and the page's own script
    assert html.count("</script>") == 2
    raw = html.split('id="matrix-data">', 1)[1].split("</script>", 1)[0]
    assert not set(raw) & {"<", ">", "\u2028", "\u2029"}
    assert "&lt;script&gt;" in html  # escaped where rendered as text (titles, models)
    # and the island still carries the hostile text intact, for textContent to show
    data = island(html)
    (failed,) = [r for r in data["cells"]["openai/stream_text"]["results"] if r["verdict"] == "fail"]
    assert SCRIPT + IMG in failed["title"]
    assert failed["diff"][0]["actual"].startswith(SCRIPT + IMG + "line\u2028paragraph")
    assert SCRIPT in data["cells"]["gemini/error_overloaded"]["results"][0]["actual"]["error"]["message"]
    assert IMG in data["cells"]["gemini/thinking_signature"]["results"][0]["cassette"]


@pytest.mark.parametrize("hostile", ["</script><script>alert(1)</script>", "<!--", "a\u2028b\u2029c", "'&'"])
def test_json_island_escapes(hostile: str) -> None:
    text = str(json_island({"k": hostile}))
    assert not set(text) & {"<", ">", "&", "'", "\u2028", "\u2029"}
    assert json.loads(text) == {"k": hostile}


def test_regressions_between_runs() -> None:
    before = sample_matrix()
    after = sample_matrix(stream_text_openai="fail")
    (change,) = regressions(before, after)
    assert (change.provider, change.feature, change.before, change.after) == ("openai", "stream_text", "pass", "fail")
    assert regressions(after, before) == []
    assert [(c.feature, c.before, c.after) for c in improvements(after, before)] == [("stream_text", "fail", "pass")]
    html = render_html(after, previous=before)
    assert "▼ 1 cell regressed since the run of 2026-11-22 12:00 UTC" in html
    assert '<span class="badge">▼ was pass</span>' in html
    assert len(re.findall(r"<td [^>]*data-regressed", html)) == 1
    assert '<option value="regressed">' in html
    assert island(html)["regressed"] == {"openai/stream_text": "pass"}
    assert (
        "Verdicts from best to worst: pass &lt; policy &lt; unsupported &lt; not_offered &lt; skipped &lt; missing &lt; fail &lt; error"
        in html
    )
    same = render_html(before, previous=before)
    assert "No cell regressed since the run of 2026-11-22 12:00 UTC" in same
    assert not re.findall(r"<td [^>]*data-regressed", same)
    assert "improved" in render_html(before, previous=after)


def test_regression_order() -> None:
    assert sorted(RANK, key=RANK.__getitem__) == [
        "pass",
        "policy",
        "unsupported",
        "not_offered",
        "skipped",
        "missing",
        "fail",
        "error",
    ]
    before, after = sample_matrix(), sample_matrix()
    gone = after.model_copy(update={"cells": [c for c in after.cells if (c.provider, c.feature) != ("openai", "text")]})
    (change,) = regressions(before, gone)
    assert (change.before, change.after) == ("pass", None)
    assert str(change) == "text[openai]: pass → absent"


def test_write_is_atomic_and_readable(tmp_path: Path) -> None:
    path = write_html(sample_matrix(), tmp_path / "out")
    assert path == tmp_path / "out" / "index.html"
    assert path.stat().st_mode & 0o644 == 0o644
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["index.html"]
    assert path.read_text(encoding="utf-8") == render_html(sample_matrix())


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


def test_self_contained() -> None:
    html = render_html(sample_matrix())
    assert not re.search(r'(src|href|action)="', html)
    assert "@import" not in html and "url(" not in html
    assert "default-src 'none'" in html
