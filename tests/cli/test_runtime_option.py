"""Running the matrix against another runtime through the protocol (the shipped example adapter)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_example_adapter_runs_and_is_named_in_the_matrix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "out"
    args = ["run", "--runtime", "examples.sdk_runtime:make", "--provider", "openai", "--scenario", "text_basic"]
    assert main([*args, "--scenario", "tool_call_stream", "--out", str(out), "--no-html", "--no-real"]) == 0
    matrix = json.loads((out / "matrix.json").read_text())
    assert matrix["runtime"] == "openai-sdk (example adapter)"
    assert {c["verdict"] for c in matrix["cells"]} == {"pass"}


def test_a_runtime_that_does_not_follow_the_protocol(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "not_a_runtime.py").write_text("def make():\n    return object()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["run", "--root", str(ROOT), "--runtime", "not_a_runtime:make", "--provider", "openai"]) == 2
    assert "implements none of the runtime protocol" in capsys.readouterr().err.replace("\n", " ")
