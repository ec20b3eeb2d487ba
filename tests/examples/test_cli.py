"""`conformance run --runtime examples.<adapter>:make`, as the README shows it, for every adapter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from tests.examples import library_warnings as warn
from tests.examples.rows import ROOT
from tests.lazy import require

require("openai", "anthropic", "pydantic_ai")

# the anthropic SDK warns on every request to a model on its deprecation list (the cassettes' model is one)
pytestmark = warn.DEPRECATED_MODEL


@pytest.mark.parametrize(
    ("factory", "provider", "name"),
    [
        ("examples.openai_sdk:make", "openai", "openai-sdk"),
        ("examples.anthropic_sdk:make", "anthropic", "anthropic-sdk"),
        ("examples.pydantic_ai_runtime:make_decoder", "anthropic", "pydantic-ai"),
    ],
)
def test_each_adapter_runs_from_the_command_line(
    factory: str, provider: str, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "out"
    args = ["run", "--runtime", factory, "--provider", provider, "--scenario", "text_basic", "--no-real"]
    assert main([*args, "--scenario", "repair_orphan_tool_result", "--out", str(out), "--no-html"]) == 0
    matrix = json.loads((out / "matrix.json").read_text())
    assert matrix["runtime"].startswith(name)
    verdicts = {r["scenario"]: r["verdict"] for c in matrix["cells"] for r in c["results"]}
    assert verdicts == {"text_basic": "pass", "repair_orphan_tool_result": "skipped"}
