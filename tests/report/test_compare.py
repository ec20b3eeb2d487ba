"""Runtimes side by side: merging matrices, finding disagreements, labels, bad input, the terminal
table, the HTML page (structure and escaping) and `conformance report --compare`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from conformance.cli import main
from conformance.exceptions import InputError
from conformance.report.compare import NOT_RUN, compare, labels, load_matrix, merge
from conformance.report.compare_html import render_compare_html, write_compare_html
from conformance.report.compare_terminal import CompareTable
from conformance.report.matrix import Matrix
from tests.report.compare_sample import OTHER, other, reference
from tests.report.sample import IMG, SCRIPT, cell, result, sample_matrix

A, B = Path("runs/a/matrix.json"), Path("runs/b/matrix.json")


def both(**kw: Any) -> Any:
    return merge([A, B], [reference(), other(**kw)])


def island(html: str) -> dict[str, Any]:
    raw = re.search(r'<script type="application/json" id="compare-data">(.*?)</script>', html, re.S)
    assert raw is not None
    data: dict[str, Any] = json.loads(raw.group(1))
    return data


def test_merge_is_the_union_of_providers_and_features() -> None:
    cmp = both()
    assert [s.label for s in cmp.sides] == ["reference", OTHER]
    assert cmp.providers == ["openai", "anthropic", "gemini", "ollama"]
    assert [f.id for f in cmp.features] == [
        "text",
        "stream_text",
        "thinking_signature",
        "error_overloaded",
        "retry_backoff",
    ]
    assert len(cmp.spots) == 15  # the reference's 14 cells and the other runtime's retry_backoff
    # a runtime without the cell shows "not run" (None), never another runtime's verdict
    assert cmp.spots[("ollama", "text")].verdicts == ("missing", None)
    assert cmp.spots[("openai", "retry_backoff")].verdicts == (None, "pass")
    assert cmp.spots[("anthropic", "thinking_signature")].verdicts == ("pass", "skipped")
    assert cmp.counts(0) == {
        "pass": 11,
        "fail": 0,
        "unsupported": 1,
        "missing": 1,
        "error": 1,
        "skipped": 0,
        "not_offered": 0,
        "policy": 0,
        NOT_RUN: 1,
    }
    assert cmp.counts(1) == {
        "pass": 9,
        "fail": 1,
        "unsupported": 1,
        "missing": 0,
        "error": 1,
        "skipped": 1,
        "not_offered": 0,
        "policy": 0,
        NOT_RUN: 2,
    }


def test_disagreements() -> None:
    cmp = both()
    assert [s.key for s in cmp.disagreements()] == ["openai/stream_text"]
    # pass against skipped: only one runtime answered, so it is listed apart, never a disagreement
    assert [s.key for s in cmp.apart()] == ["anthropic/thinking_signature"]
    assert not cmp.spots[("gemini", "thinking_signature")].disagree  # both error: they agree
    assert not cmp.spots[("ollama", "stream_text")].disagree  # one did not run it: nothing to disagree about
    assert merge([A, B], [reference(), reference()]).disagreements() == []


def test_same_cell_verdict_with_different_scenarios_disagrees() -> None:
    def one(first: str, second: str) -> Matrix:
        m = sample_matrix()
        c = cell("openai", "text", result("openai", "text", "s1", first), result("openai", "text", "s2", second))
        return m.model_copy(update={"cells": [c]})

    assert merge([A, B], [one("fail", "pass"), one("pass", "fail")]).disagreements()[0].key == "openai/text"
    assert merge([A, B], [one("fail", "pass"), one("fail", "pass")]).disagreements() == []
    # a scenario only one runtime ran is no disagreement by itself
    extra = sample_matrix().model_copy(
        update={"cells": [cell("openai", "text", result("openai", "text", "s1", "fail"))]}
    )
    assert merge([A, B], [one("fail", "pass"), extra]).disagreements() == []


def test_labels_tell_apart_runtimes_of_the_same_name() -> None:
    assert labels([A, B], ["reference", "x:make"]) == ["reference", "x:make"]
    assert labels([A, B], ["reference", "reference"]) == ["reference (a)", "reference (b)"]
    assert labels([Path("r/x.json"), Path("r/y.json")], ["ref", "ref"]) == ["ref (x.json)", "ref (y.json)"]
    assert labels([Path("a/run/matrix.json"), Path("b/run/matrix.json")], ["ref", "ref"]) == [
        "ref (a/run)",
        "ref (b/run)",
    ]
    assert labels([A, A], ["ref", "ref"]) == ["ref (runs/a/matrix.json)", "ref (runs/a/matrix.json) #2"]


def test_bad_input_names_the_file_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    (tmp_path / "other.json").write_text('{"providers": []}\n')
    cases = {
        tmp_path / "nope.json": "no such matrix file",
        tmp_path: "is a directory, not a matrix.json",
        tmp_path / "notes.txt": "not a matrix.json",
        tmp_path / "other.json": "not a matrix.json: harness_version: Field required (and",
    }
    for path, message in cases.items():
        with pytest.raises(InputError) as info:
            load_matrix(path)
        assert str(info.value).startswith(f"{path}: {message}")
        assert "\n" not in str(info.value)


def test_terminal_table() -> None:
    hostile = other(canaries=False)
    hostile.cells[0].results[0].reason = "[bold red]markup[/] stays text"
    hostile.cells[0].results[0].verdict = "fail"
    hostile.cells[0].verdict = "fail"
    console = Console(record=True, width=200, color_system=None)
    console.print(CompareTable(merge([A, B], [reference(), hostile]), width=200))
    out = console.export_text()
    rows = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
        for line in out.splitlines()
        if line.count("│") > 3
    }
    assert rows["≠ stream_text"] == ["✓2/2 ✗1/2", "✓2/2 ✓2/2", "✓2/2 ✓2/2", "✓2/2 ×"]
    assert rows["thinking_signature"] == ["– –", "✓1/1 ○", "!0/1 !0/1", ""]
    assert rows["retry_backoff"] == ["× ✓1/1", "", "", ""]
    assert "marks per cell, left to right: 1. reference, 2. mypkg.adapter:make" in out
    assert "reference (runs/a/matrix.json): cells 11 pass, 1 unsupported, 1 missing, 1 error, 1 not run" in out
    assert "≠ 2 of 15 cells disagree" in out
    assert "≠ stream_text[openai]  first difference: stream_multibyte: message.content[0].text" in out
    assert "    mypkg.adapter:make: ✗ fail — stream_multibyte: 2 differences from the expected normalized form" in out
    assert "1 cells answered by some runtimes only" in out
    assert "○ skipped — thinking_sig" not in out  # not a disagreement
    assert "    mypkg.adapter:make: ✗ fail — text_basic: [bold red]markup[/] stays text" in out


def test_page_structure_and_counts() -> None:
    html = render_compare_html(both())
    cards = html.split('<li class="card" data-runtime="')[1:]
    assert len(cards) == 2
    tally = [dict(re.findall(r'data-count="([\w-]+)">(\d+)<', card)) for card in cards]
    assert tally[0] == {"pass": "11", "fail": "0", "unsupported": "1", "missing": "1", "error": "1", "not-run": "1"}
    assert tally[1] == {"pass": "9", "fail": "1", "unsupported": "1", "error": "1", "skipped": "1", "not-run": "2"}
    assert '<b id="disagree-count">1</b> of <span id="spot-count">15</span> cells disagree' in html
    assert re.findall(r'<tr data-feature="([^"]+)" data-disagree', html) == ["stream_text"]
    assert html.count('<button type="button" class="cell') == 30  # 15 cells × 2 runtimes
    assert html.count('<button type="button" class="cell v-none"') == 3
    assert (
        'aria-label="stream_text on openai, reference: pass 2/2, mypkg.adapter:make: fail 1/2, runtimes disagree"'
        in html
    )
    assert '<time datetime="2026-11-22T12:00:00+00:00">2026-11-22 12:00 UTC</time>' in html
    spot = island(html)["spots"]["openai/stream_text"]
    assert spot["disagree"] is True
    assert spot["scenarios"] == [["stream_multibyte", "decode"], ["stream_ascii", "decode"]]
    (failed,) = [r for r in spot["cells"][1]["results"] if r["verdict"] == "fail"]
    assert [d["path"] for d in failed["diff"]] == ["message.content[0].text", "note", "usage"]
    assert island(html)["spots"]["openai/retry_backoff"]["cells"][0] is None
    assert not re.search(r'(src|href|action)="', html)
    assert "default-src 'none'" in html


def test_canaries_never_appear_unescaped(tmp_path: Path) -> None:
    runtime = "evil" + SCRIPT + IMG
    folder = tmp_path / ("run" + IMG.replace("/", ""))
    folder.mkdir()
    html = render_compare_html(merge([A, folder / "matrix.json"], [reference(), other(runtime=runtime)]))
    assert SCRIPT not in html
    assert IMG not in html
    assert "<img" not in html
    assert html.count("<script") == 2  # the data island and the page's own script
    assert html.count("</script>") == 2
    raw = html.split('id="compare-data">', 1)[1].split("</script>", 1)[0]
    assert not set(raw) & {"<", ">", "\u2028", "\u2029"}
    assert "evil&lt;script&gt;" in html  # the runtime's name, escaped in the header and the cards
    data = island(html)
    assert data["runtimes"][1]["runtime"] == runtime
    assert IMG.replace("/", "") in data["runtimes"][1]["path"]
    cells = data["spots"]["anthropic/thinking_signature"]["cells"]
    assert SCRIPT + IMG in cells[1]["results"][0]["reason"]
    (failed,) = [r for r in data["spots"]["openai/stream_text"]["cells"][1]["results"] if r["verdict"] == "fail"]
    assert failed["diff"][0]["actual"].startswith(SCRIPT + IMG + "line\u2028paragraph")


def test_write_compare_html(tmp_path: Path) -> None:
    path = write_compare_html(both(), tmp_path / "site" / "compare.html")
    assert path.read_text(encoding="utf-8") == render_compare_html(both())
    assert [p.name for p in (tmp_path / "site").iterdir()] == ["compare.html"]


def test_compare_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "240")
    a, b = Path("a/matrix.json"), Path("b/matrix.json")
    a.parent.mkdir()
    b.parent.mkdir()
    reference().save(a)
    other(canaries=False).save(b)
    assert main(["report", "--compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "≠ stream_text" in out
    assert "wrote reports/compare.html" in out
    assert Path("reports/compare.html").is_file() and not Path("reports/index.html").exists()
    assert main(["report", "--compare", str(a), str(b), "--fail-on-disagreement"]) == 1
    assert main(["report", "--compare", str(a), str(a), "--fail-on-disagreement"]) == 0
    assert "reference (a/matrix.json) #2" in capsys.readouterr().out
    assert main(["report", "--compare", str(a), str(b), "--out", "site"]) == 0
    assert "wrote site/index.html" in capsys.readouterr().out
    assert compare([a, b]).disagreements()  # the files written are the ones compared


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--compare", "a.json", "nope.json"], "nope.json: no such matrix file"),
        (["--compare", "a.json", "dir"], "dir: is a directory, not a matrix.json"),
        (["--compare", "a.json", "notes.txt"], "notes.txt: not a matrix.json: (document): Invalid JSON"),
        (["--compare", "a.json"], "--compare: needs at least two matrix.json files"),
        (["--compare", "a.json", "a.json", "--previous", "a.json"], "--previous: compares two runs of one runtime"),
        (["--input", "a.json", "--fail-on-disagreement"], "--fail-on-disagreement: needs --compare"),
    ],
)
def test_compare_command_bad_input(
    argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "240")
    reference().save(Path("a.json"))
    Path("dir").mkdir()
    Path("notes.txt").write_text("not json\n")
    assert main(["report", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: " + message)
    assert err.count("\n") == 1
    assert not Path("reports").exists()


def test_terminal_shows_names_as_text_not_markup() -> None:
    m = other(runtime="[/]odd[bold red]name", canaries=False)
    m = m.model_copy(update={"providers": ["openai", "[/]prov"]})
    console = Console(record=True, width=300, color_system=None)
    console.print(CompareTable(merge([A, B], [reference(), m])))
    out = console.export_text()
    assert "conformance comparison — reference | [/]odd[bold red]name" in out
    assert "[/]prov" in out
    assert "    [/]odd[bold red]name: ✗ fail — stream_multibyte" in out


def test_mark_titles_carry_the_reason() -> None:
    html = render_compare_html(both(canaries=False))
    assert (
        'title="mypkg.adapter:make: skipped — thinking_sig: runtime mypkg.adapter:make does not implement `turn` hostile text"'
        in html
    )
    assert 'title="reference: pass 2/2"' in html
    assert 'title="mypkg.adapter:make: not run"' in html


def test_the_terminal_view_fits_100_columns_for_every_provider() -> None:
    from conformance.capabilities import matrix_providers

    many = matrix_providers()
    wide = [m.model_copy(update={"providers": many}) for m in (reference(), other(canaries=False))]
    console = Console(record=True, width=100, color_system=None)
    console.print(CompareTable(merge([A, B], wide)))
    out = console.export_text()
    assert max(len(line) for line in out.splitlines() if "│" in line or "━" in line) <= 100
    assert "(1/" in out  # split into several tables


def test_fail_on_disagreement_ignores_runtimes_that_did_not_answer(tmp_path: Path) -> None:
    from conformance.cli import main

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    reference().save(a)
    skipped = reference()
    for c in skipped.cells:
        if c.verdict == "pass":
            for r in c.results:
                r.verdict = "skipped"
            c.verdict = "skipped"
    skipped.save(b)
    out = tmp_path / "cmp"
    assert main(["report", "--compare", str(a), str(b), "--out", str(out), "--fail-on-disagreement"]) == 0


def test_a_cell_reads_passing_of_answered_in_run_and_compare_alike() -> None:
    """A fully passing cell with 4 unsupported rows reads `3/3` in `run` and in `report --compare`."""
    from conformance.report.compare_terminal import mark
    from conformance.report.matrix import Cell
    from conformance.report.terminal import cell_text

    cell = Cell(provider="openai", feature="text", verdict="pass", counts={"pass": 3, "unsupported": 4}, results=[])
    assert cell_text(cell).plain == "✓ 3/3"
    assert mark(cell).plain == "✓3/3"
