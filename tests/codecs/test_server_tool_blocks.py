"""Every encoder, called without repair, sends a `server_tool` block only to its own dialect: a
block of another dialect, in an assistant or a user turn, is left out rather than sent or crashed on."""

from __future__ import annotations

import json

import pytest

from conformance.capabilities import get_profile, matrix_providers
from conformance.codecs import codec_for
from conformance.model import Conversation, parse_message

MARK = "only-for-its-own-dialect"


def _block(dialect: str, name: str) -> dict[str, object]:
    return {"type": "server_tool", "dialect": dialect, "name": name, "data": {"type": name, "note": MARK}}


@pytest.mark.parametrize("provider", matrix_providers())
def test_a_foreign_block_is_left_out(provider: str) -> None:
    profile = get_profile(provider)
    foreign = "anthropic" if profile.dialect != "anthropic" else "openai_responses"
    conv = Conversation(
        messages=[
            parse_message({"role": "user", "content": "q"}),
            parse_message(
                {"role": "assistant", "content": [_block(foreign, "web_search"), {"type": "text", "text": "a"}]}
            ),
            parse_message({"role": "user", "content": [{"type": "text", "text": "yes"}, _block(foreign, "answer")]}),
        ]
    )
    body = codec_for(profile).encode(conv, profile).body
    assert MARK not in json.dumps(body)


@pytest.mark.parametrize("provider", ["openai_responses", "anthropic"])
def test_an_own_block_is_sent_as_it_is(provider: str) -> None:
    profile = get_profile(provider)
    conv = Conversation(
        messages=[
            parse_message({"role": "user", "content": "q"}),
            parse_message(
                {"role": "assistant", "content": [_block(profile.dialect, "x"), {"type": "text", "text": "a"}]}
            ),
            parse_message({"role": "user", "content": "more"}),
        ]
    )
    body = json.dumps(codec_for(profile).encode(conv, profile).body)
    assert body.count(MARK) == 1
