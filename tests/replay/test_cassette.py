"""Our cassettes are plain vcrpy YAML: stock vcrpy loads what we write, and we load what it writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from vcr.persisters.filesystem import FilesystemPersister
from vcr.serializers import yamlserializer

from conformance.exceptions import CassetteError
from conformance.replay.cassette import (
    Cassette,
    Interaction,
    RecordedRequest,
    RecordedResponse,
    dump_cassette,
    load_cassette,
    save_cassette,
)

SSE = b'data: {"choices":[{"delta":{"content":"caf\xc3\xa9"}}]}\n\ndata: [DONE]\n\n'


def sample(path: Path) -> Cassette:
    return Cassette(
        path=path,
        meta={"provider": "openai", "recorded": "2026-11-22", "model": "gpt-4.1-mini"},
        interactions=[
            Interaction(
                RecordedRequest("POST", "https://api.openai.com/v1/chat/completions", b'{"model":"m","stream":true}'),
                RecordedResponse(200, SSE, {"content-type": ["text/event-stream"]}, "OK"),
            )
        ],
    )


def test_written_cassettes_are_readable_and_round_trip(tmp_path: Path) -> None:
    path = save_cassette(sample(tmp_path / "c.yaml"))
    text = path.read_text(encoding="utf-8")
    assert "string: |+\n        data: " in text  # SSE as a literal block, one frame per line
    assert '"stream": true' in text  # request JSON pretty-printed
    loaded = load_cassette(path)
    assert loaded.interactions[0].response.body == SSE
    assert loaded.interactions[0].request.json() == {"model": "m", "stream": True}
    assert loaded.interactions[0].request.stream_requested()
    assert loaded.meta["recorded"] == "2026-11-22"


def test_stock_vcrpy_loads_our_cassettes(tmp_path: Path) -> None:
    path = save_cassette(sample(tmp_path / "c.yaml"))
    requests, responses = FilesystemPersister.load_cassette(str(path), yamlserializer)
    assert requests[0].uri == "https://api.openai.com/v1/chat/completions"
    body = responses[0]["body"]["string"]
    assert (body.encode() if isinstance(body, str) else body) == SSE


def test_crlf_bodies_survive(tmp_path: Path) -> None:
    cassette = sample(tmp_path / "c.yaml")
    cassette.interactions[0].response.body = b"data: a\r\n\r\n"
    loaded = load_cassette(save_cassette(cassette))
    assert loaded.interactions[0].response.body == b"data: a\r\n\r\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("interactions: [\n", r"c\.yaml:2: malformed YAML"),
        ("version: 1\n", "missing field 'interactions'"),
        (
            "interactions:\n- request: {method: POST, uri: u}\n",
            r"interactions\[0\]: missing field 'response'",
        ),
        (
            "interactions:\n- request: {method: POST, uri: u}\n  response: {status: {code: OK}}\n",
            r"interactions\[0\]\.response\.status\.code: status code must be an integer",
        ),
    ],
)
def test_malformed_cassettes_name_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CassetteError, match=message):
        load_cassette(path)


def test_missing_cassette(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match="no such cassette"):
        load_cassette(tmp_path / "nope.yaml")


def test_dump_is_deterministic(tmp_path: Path) -> None:
    assert dump_cassette(sample(tmp_path / "a.yaml")) == dump_cassette(sample(tmp_path / "a.yaml"))
