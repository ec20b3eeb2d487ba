"""`conformance run --show-diff` prints what "N differences" means."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from tests.harness.project import SCENARIO, make_project


@pytest.mark.parametrize("flag", ["--show-diff", "-v"])
def test_show_diff_prints_each_failing_scenarios_differences(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    root = make_project(tmp_path, scenario=SCENARIO.replace('text: "Hello!"', 'text: "Goodbye!"'))
    args = ["run", "--root", str(root), "--provider", "anthropic", "--no-progress", "--no-html", "-j", "1"]
    assert main(args) == 1
    plain = capsys.readouterr().out
    assert "Goodbye" not in plain
    assert main([*args, flag]) == 1
    out = capsys.readouterr().out
    assert "text_hello[anthropic] fail (wrong)" in out
    assert "Goodbye!" in out and "Hello!" in out
