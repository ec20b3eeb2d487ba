"""A cassette body given as YAML data that JSON cannot hold is a typed error naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.exceptions import CassetteError
from conformance.replay.cassette import load_cassette


@pytest.mark.parametrize(
    "body",
    ["{a: 123456789012345678901234567890}", "{2026-11-22: x}", "!!set {a, b}", "{1: x}"],
)
def test_a_body_json_cannot_hold(tmp_path: Path, body: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "interactions:\n"
        f"- request: {{method: POST, uri: 'http://x/y', body: {body}}}\n"
        "  response: {status: {code: 200}, body: {string: '{}'}}\n"
    )
    with pytest.raises(CassetteError, match=r"interactions\[0\]\.request\.body") as caught:
        load_cassette(path)
    assert "\n" not in str(caught.value)
