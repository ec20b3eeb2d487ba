"""What a CI system reads of a run and a gate, without replaying a workflow: `run --junit-xml`
(one test case per scenario × provider, failures as failures), `report --summary` (the gate as
Markdown for the step summary, results already failing on the base reported apart and not fatal)
and `--format github --root` (annotations on the scenario file as the repository names it)."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from conformance.cli import main
from conformance.report.junit import junit_xml
from tests.report.sample import cell, result, sample_matrix


def test_junit_xml_has_a_case_per_result_and_the_failure(tmp_path: Path) -> None:
    root = ET.fromstring(junit_xml(sample_matrix(stream_text_openai="fail")))
    cases = {c.get("name"): c for c in root.iter("testcase")}
    failing = cases["stream_multibyte[openai]"]
    assert failing.get("file") == "scenarios/stream_text/stream_multibyte.yaml"
    assert failing.find("failure") is not None
    assert cases["stream_multibyte[anthropic]"].find("failure") is None
    openai = next(s for s in root.iter("testsuite") if s.get("name") == "openai")
    assert openai.get("failures") == "1"


def test_run_writes_junit_xml_where_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["run", "--provider", "anthropic", "--scenario", "text_basic", "--no-progress", "--no-html", "--no-real"]
    assert main([*args, "--out", "out", "--junit-xml", "ci/junit.xml"]) == 0
    cases = list(ET.parse(tmp_path / "ci" / "junit.xml").getroot().iter("testcase"))
    assert [c.get("name") for c in cases] == ["text_basic[anthropic]"] and cases[0].find("failure") is None


def test_the_summary_and_annotations_of_a_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, head = tmp_path / "base.json", tmp_path / "head.json"
    sample_matrix(stream_text_openai="fail").save(base)  # already failing on the base
    failing = sample_matrix(stream_text_openai="fail")
    broken = cell("anthropic", "text", result("anthropic", "text", "text_basic", "fail", reason="1 difference"))
    others = [c for c in failing.cells if (c.provider, c.feature) != ("anthropic", "text")]
    failing.model_copy(update={"cells": [*others, broken]}).save(head)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    args = ["report", "--input", str(head), "--previous", str(base), "--out", str(tmp_path / "site")]
    args += ["--fail-on-regression", "--format", "github", "--root", "conformance", "--summary", str(summary)]
    assert main(args) == 1  # the new failure regresses
    out = capsys.readouterr().out.splitlines()
    errors = [line for line in out if line.startswith("::error")]
    assert len(errors) == 1 and "file=conformance/scenarios/text/text_basic.yaml" in errors[0]
    assert "text_basic[anthropic]" in errors[0]
    text = summary.read_text()
    assert text.startswith("earlier step\n")  # appended, as GitHub's step summary file is
    assert "**1 regressed**" in text and "### Already failing on the base" in text
    assert "`stream_multibyte[openai]`" in text.split("### Already failing on the base")[1]
