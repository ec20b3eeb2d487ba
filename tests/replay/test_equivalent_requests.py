"""Replay matches a request the provider reads the same as the recorded one, and still refuses a real difference."""

from __future__ import annotations

from pathlib import Path

import httpx
import orjson
import pytest

from conformance.replay.cassette import Cassette, Interaction, RecordedRequest, RecordedResponse
from conformance.replay.matchers import json_body
from conformance.replay.player import CassetteTransport, ReplayMismatch

URL = "https://api.anthropic.com/v1/messages"
RECORDED = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}


def _transport() -> CassetteTransport:
    request = RecordedRequest(method="POST", uri=URL, body=orjson.dumps(RECORDED))
    response = RecordedResponse(status=200, body=b"{}", reason="OK")
    cassette = Cassette(
        path=Path("x.yaml"), interactions=[Interaction(request, response)], meta={"provider": "anthropic"}
    )
    return CassetteTransport(cassette)


def test_a_string_content_plays_the_recorded_blocks() -> None:
    sent = {**RECORDED, "stream": False, "messages": [{"role": "user", "content": "hi"}]}
    client = httpx.Client(transport=_transport())
    assert client.post(URL, content=orjson.dumps(sent)).status_code == 200


def test_a_different_conversation_is_still_a_mismatch() -> None:
    sent = {**RECORDED, "messages": [{"role": "user", "content": "bye"}]}
    client = httpx.Client(transport=_transport())
    with pytest.raises(ReplayMismatch, match=r"messages\[0\]\.content\[0\]\.text"):
        client.post(URL, content=orjson.dumps(sent))


class _Req:
    def __init__(self, body: object) -> None:
        self.uri = URL
        self.body = orjson.dumps(body)


def test_the_vcrpy_matcher_reads_requests_the_same_way() -> None:
    json_body(_Req({**RECORDED, "system": "s"}), _Req({**RECORDED, "system": [{"type": "text", "text": "s"}]}))
    with pytest.raises(AssertionError, match="max_tokens"):
        json_body(_Req({**RECORDED, "max_tokens": 6}), _Req(RECORDED))
