"""Comparing runs over different provider sets warns and compares the providers both runs have,
instead of reporting every row of a provider left out as a regression."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from tests.report.sample import sample_matrix


def test_different_provider_sets_warn_and_compare_the_common_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    sample_matrix().save(old)
    narrower = sample_matrix(stream_text_openai="fail")
    gone = narrower.providers[-1]
    narrower.providers = narrower.providers[:-1]
    narrower.cells = [c for c in narrower.cells if c.provider != gone]
    narrower.save(new)
    args = ["report", "--input", str(new), "--previous", str(old), "--out", str(tmp_path / "site")]
    assert main([*args, "--fail-on-regression"]) == 1  # openai's stream_text still regressed
    captured = capsys.readouterr()
    assert "warning: the runs cover different providers" in captured.err and gone in captured.err
    regressed = [line for line in captured.out.splitlines() if line.startswith("regressed")]
    assert len(regressed) == 1 and "[openai]" in regressed[0]
