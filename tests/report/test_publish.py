"""`conformance publish`: a static site from a directory of runs — history per provider and per
feature, a page per runtime, badges and a JSON API; relative links only, everything escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.report.matrix import Matrix
from conformance.report.publish import slug
from tests.report.sample import SCRIPT, sample_matrix

RELEASES = {"v1.0": ("pass", "2026-11-01T10:00:00+00:00"), "v1.1": ("fail", "2026-11-10T10:00:00+00:00")}


def runs(tmp: Path) -> Path:
    """Three releases of one runtime (the middle one broke openai's stream_text), and one run of another
    runtime whose name is hostile text."""
    root = tmp / "runs"
    for label, (verdict, stamp) in {**RELEASES, "v1.2": ("pass", "2026-11-20T10:00:00+00:00")}.items():
        m = sample_matrix(stream_text_openai=verdict).model_copy(update={"generated_at": stamp})
        m.save(root / label / "matrix.json")
    other = sample_matrix().model_copy(update={"runtime": "lib " + SCRIPT, "generated_at": "2026-11-21T00:00:00+00:00"})
    other.save(root / "other-lib" / "matrix.json")
    return root


@pytest.fixture
def site(tmp_path: Path) -> Path:
    out = tmp_path / "site"
    assert main(["publish", str(runs(tmp_path)), "--out", str(out)]) == 0
    return out


def test_the_site_has_every_page(site: Path) -> None:
    names = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    hostile = slug("lib " + SCRIPT)
    assert {"index.html", "runtimes/reference.html", f"runtimes/{hostile}.html"} <= names
    assert {f"providers/{p}.html" for p in ("openai", "anthropic", "gemini", "ollama")} <= names
    assert {f"features/{f}.html" for f in ("text", "stream_text", "thinking_signature", "error_overloaded")} <= names
    assert {
        "badges/reference/openai.json",
        "api/index.json",
        "api/providers/openai.json",
        "api/features/text.json",
    } <= names
    assert "/" not in hostile.replace("-", "") and ".." not in hostile


def test_history_per_provider_and_feature(site: Path) -> None:
    api = json.loads((site / "api/features/stream_text.json").read_text())
    history = [(r["run"], r["cells"]["openai"]["tone"]) for r in api["runtimes"]["reference"]]
    assert history == [("v1.0", "pass"), ("v1.1", "fail"), ("v1.2", "pass")]  # ordered by time, not by name
    page = (site / "providers/openai.html").read_text()
    assert page.index(">v1.0<") < page.index(">v1.1<") < page.index(">v1.2<")
    assert page.count("tone-fail") >= 1


def test_denominators_leave_unsupported_out(site: Path) -> None:
    cells = json.loads((site / "api/providers/openai.json").read_text())["runtimes"]["reference"][-1]["cells"]
    assert cells["thinking_signature"] == {
        "tone": "none",
        "passed": 0,
        "judged": 0,
        "unsupported": 1,
        "not_offered": 0,
        "skipped": 0,
        "policy": 0,
    }
    gemini = json.loads((site / "api/providers/gemini.json").read_text())["runtimes"]["reference"][-1]["cells"]
    assert (gemini["error_overloaded"]["passed"], gemini["error_overloaded"]["judged"]) == (
        1,
        2,
    )  # a missing cassette counts
    index = (site / "index.html").read_text()
    assert 'title="thinking_signature on openai: nothing judged, 1 unsupported">–<' in index


def test_badges_are_shields_endpoints(site: Path) -> None:
    badge = json.loads((site / "badges/reference/openai.json").read_text())
    assert badge == {"schemaVersion": 1, "label": "openai", "message": "4/4 passing", "color": "brightgreen"}
    gemini = json.loads((site / "badges/reference/gemini.json").read_text())
    assert gemini["color"] == "red"  # an error cell


def test_links_are_relative_and_resolve_and_text_is_escaped(site: Path) -> None:
    for page in site.rglob("*.html"):
        html = page.read_text()
        assert "<script" not in html.replace("&lt;script", "")  # no script at all, and the canary escaped
        assert not re.search(r'(src|href)="(https?:|//|/)', html)
        for href in re.findall(r'href="([^"#]+)"', html):
            assert (page.parent / href).resolve().is_file(), f"{page.relative_to(site)} links to a missing {href}"


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["publish", str(tmp_path / "nowhere")]) == 2
    (tmp_path / "empty").mkdir()
    assert main(["publish", str(tmp_path / "empty"), "--out", str(tmp_path / "s")]) == 2
    broken = tmp_path / "broken" / "v1"
    broken.mkdir(parents=True)
    (broken / "matrix.json").write_text("{")
    assert main(["publish", str(tmp_path / "broken"), "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert "no such directory of runs" in err and "no matrix.json" in err and "broken/v1/matrix.json" in err


def test_a_matrix_round_trips_through_the_site_api(site: Path, tmp_path: Path) -> None:
    latest = Matrix.load(tmp_path / "runs" / "v1.2" / "matrix.json")
    index = json.loads((site / "api/index.json").read_text())
    (reference,) = [r for r in index["runtimes"] if r["name"] == "reference"]
    assert [r["run"] for r in reference["runs"]] == ["v1.0", "v1.1", "v1.2"]
    assert reference["runs"][-1]["passed"] == sum(c.counts.get("pass", 0) for c in latest.cells)


ADVERSARIAL = ["openai/b", "openai-b", "openai~2fb", "OpenAI-B", "..", ".", "", "a" * 300, "a" * 299 + "b", "é/ü"]
"""Names that a lossy page name would make share a page: `/` and `-`, an escape spelled out, letter
case (one file on a case-insensitive disk), dots, nothing, long names alike in their first 80 characters."""


def test_page_names_never_collide(tmp_path: Path) -> None:
    from conformance.report.matrix import FeatureRow
    from tests.report.sample import cell, result

    names = [slug(name) for name in ADVERSARIAL]
    assert len({n.lower() for n in names}) == len(ADVERSARIAL), names
    for name in names:
        assert name and name not in (".", "..") and "/" not in name and len(name) <= 120
        assert re.fullmatch(r"[a-z0-9._~-]+", name), name
    matrix = sample_matrix(canaries=False).model_copy(
        update={
            "providers": ADVERSARIAL,
            "features": [FeatureRow(id=n, group="g", title=f"title of {n}") for n in ADVERSARIAL],
            "cells": [cell(p, p, result(p, p, f"s{i}", "pass")) for i, p in enumerate(ADVERSARIAL)],
            "runtime": "r/1",
        }
    )
    matrix.save(tmp_path / "runs" / "a" / "matrix.json")
    matrix.model_copy(update={"runtime": "r-1"}).save(tmp_path / "runs" / "b" / "matrix.json")
    out = tmp_path / "site"
    assert main(["publish", str(tmp_path / "runs"), "--out", str(out)]) == 0
    for kind in ("providers", "features"):
        pages = sorted((out / kind).glob("*.html"))
        assert len(pages) == len(ADVERSARIAL)
        api = json.loads((out / "api" / "index.json").read_text())[kind]
        assert len(set(api.values())) == len(ADVERSARIAL)
        for name, rel in api.items():
            page = json.loads((out / rel).read_text())
            assert page.get("provider", page.get("feature")) == name or name in json.dumps(page)
    assert len(list((out / "runtimes").glob("*.html"))) == 2
