"""Every stream body of these tests decodes the same, with the same events, for any split of its
bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.capabilities import get_profile
from conformance.codecs.openai_chat import OpenAIChatStream
from conformance.model import AssistantMessage, StreamEvent
from tests.codecs.openai_chat.streams import STREAMS

PROFILES = ("openai", "openrouter", "groq", "fireworks", "mistral", "xai", "deepseek")


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c for c in cuts if 0 < c < len(body)})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]


def run(body: bytes, provider: str, chunks: list[bytes]) -> tuple[AssistantMessage, list[StreamEvent]]:
    acc = OpenAIChatStream(get_profile(provider))
    events: list[StreamEvent] = []
    for piece in chunks:
        events += acc.feed(piece)
    return acc.finish(), events


@pytest.mark.parametrize("name", sorted(STREAMS))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_chunking_gives_the_same_message_and_events(name: str, data: st.DataObject) -> None:
    body = STREAMS[name]
    provider = data.draw(st.sampled_from(PROFILES), label="provider")
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(body)), max_size=30), label="cuts")
    pieces = split(body, cuts)
    assert b"".join(pieces) == body
    assert run(body, provider, pieces) == run(body, provider, [body])


@pytest.mark.parametrize("name", sorted(STREAMS))
@pytest.mark.parametrize("provider", PROFILES)
def test_byte_by_byte_feeding(name: str, provider: str) -> None:
    """One byte per chunk splits every multibyte character, CRLF and tag."""
    body = STREAMS[name]
    assert run(body, provider, [body[i : i + 1] for i in range(len(body))]) == run(body, provider, [body])
