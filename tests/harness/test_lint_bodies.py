"""`lint` checks that each body parses as its content type says: an empty or cut JSON body is a finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from conformance.commands.scaffold import CASSETTE
from conformance.harness.lint import lint_file

BODY = '{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message"'


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("", "says application/json but its body is empty"),
        ('{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"mess', "says application/json but its body is not JSON"),
    ],
)
def test_an_empty_or_cut_json_body_is_a_finding(tmp_path: Path, body: str, expected: str) -> None:
    start = CASSETTE.index("string: '") + len("string: '")
    end = CASSETTE.index("'\n", start)
    path = tmp_path / "c.yaml"
    path.write_text(CASSETTE[:start] + body + CASSETTE[end:])
    findings = lint_file(path, None)
    assert [f.rule for f in findings] == ["body"]
    assert expected in findings[0].message and "the response" in findings[0].message


def test_a_whole_json_body_is_no_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CASSETTE)
    assert lint_file(path, None) == []
    cut = tmp_path / "cut.yaml"
    cut.write_text(CASSETTE.replace('"cache_read_input_tokens":0}}', '"cache_read_input_t'))
    assert main(["lint", str(cut)]) == 1
    assert "cut.yaml" in capsys.readouterr().out
