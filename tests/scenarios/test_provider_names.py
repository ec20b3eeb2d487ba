"""A provider name mistyped anywhere in a scenario is a one-line error with a suggestion, never a row
silently dropped or an override silently ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main

SCENARIO = """\
title: t
feature: text
check: decode
{extra}
providers:
  {entry}: {{}}
expected: {{message: {{role: assistant, content: []}}}}
"""


@pytest.mark.parametrize(
    ("extra", "entry"),
    [
        ("applies_to: [opnai]", "openai"),
        ("", "opnai"),
        ("overrides: {opnai: {}}", "openai"),
        ("overrides: {'anthropic, opnai': {}}", "openai"),
    ],
)
def test_an_unknown_provider_is_one_line_with_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str, entry: str
) -> None:
    (tmp_path / "scenarios" / "x").mkdir(parents=True)
    (tmp_path / "scenarios" / "x" / "typo.yaml").write_text(SCENARIO.format(extra=extra, entry=entry))
    (tmp_path / "cassettes").mkdir()
    out = str(tmp_path / "reports")
    assert main(["run", "--root", str(tmp_path), "--no-progress", "--no-real", "--no-html", "--out", out]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "typo.yaml" in err and "unknown provider 'opnai'" in err and "did you mean 'openai'" in err
