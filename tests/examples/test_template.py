"""The adapter template (examples/template/adapter.mjs, plain Node, no dependencies) passes every
decode row of OpenAI through `conformance run --runtime-cmd`, as its README says."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance.cli import main
from tests.examples.rows import ROOT

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node (the template is a Node script)")

TEMPLATE = ROOT / "examples" / "template" / "adapter.mjs"


def test_the_template_passes_every_openai_decode_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "out"
    # the scenario rows: the real recorded calls judge libraries, and the template is a starting point
    args = ["run", "--runtime-cmd", f"node {TEMPLATE}", "--provider", "openai", "--out", str(out), "--no-real"]
    assert main([*args, "--no-html", "--no-progress", "--jobs", "1"]) == 0
    matrix = json.loads((out / "matrix.json").read_text())
    assert matrix["runtime"].startswith("template")
    results = [r for cell in matrix["cells"] for r in cell["results"]]
    decode = {r["scenario"]: r["verdict"] for r in results if r["check"] == "decode"}
    assert len(decode) > 20
    assert {s: v for s, v in decode.items() if v not in ("pass", "unsupported")} == {}
    # the rows needing other capabilities are skipped, except the re-chunked and re-streamed answers (decode again)
    others = {r["scenario"]: r["verdict"] for r in results if r["check"] != "decode" and r["verdict"] != "unsupported"}
    assert others.pop("generated_rechunk") == "pass"
    assert others.pop("generated_parity") == "pass"
    assert set(others.values()) == {"skipped"}
