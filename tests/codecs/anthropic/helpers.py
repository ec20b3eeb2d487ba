"""Shared test helpers: decode a body through the codec, optionally re-chunked."""

from __future__ import annotations

import itertools
from typing import Any

from conformance.capabilities import get_profile
from conformance.codecs.anthropic import CODEC, AnthropicStream
from conformance.codecs.base import decode_response
from conformance.model import Outcome, StreamEvent

PROFILE = get_profile("anthropic")
SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8"}
JSON_HEADERS = {"content-type": "application/json"}


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    """`body` cut at the given offsets (any order, duplicates allowed)."""
    points = [0, *sorted(set(cuts)), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(points)]


def _decode_stream(body: bytes, cuts: list[int]) -> Outcome:
    return decode_response(CODEC, PROFILE, 200, SSE_HEADERS, body, chunks=split(body, cuts))


def _feed(body: bytes, cuts: list[int]) -> list[StreamEvent]:
    acc = AnthropicStream(PROFILE)
    events: list[StreamEvent] = []
    for chunk in split(body, cuts):
        events.extend(acc.feed(chunk))
    acc.finish()
    return events


def stream_outcome(body: bytes, cuts: list[int] | None = None) -> Outcome:
    """The outcome of a stream body. Without `cuts` the body is also decoded one byte per chunk,
    and the two must agree, so every stream test also checks re-chunking."""
    if cuts is not None:
        return _decode_stream(body, cuts)
    whole = _decode_stream(body, [])
    assert _decode_stream(body, list(range(len(body)))) == whole, "outcome depends on chunking"
    return whole


def stream_events(body: bytes, cuts: list[int] | None = None) -> list[StreamEvent]:
    """The events of a stream body; re-chunking checked as in `stream_outcome`."""
    if cuts is not None:
        return _feed(body, cuts)
    whole = _feed(body, [])
    assert _feed(body, list(range(len(body)))) == whole, "events depend on chunking"
    return whole


def json_outcome(body: bytes) -> Outcome:
    return decode_response(CODEC, PROFILE, 200, JSON_HEADERS, body)


def message_json(outcome: Outcome) -> dict[str, Any]:
    """The message (or partial) as contract JSON."""
    message = outcome.message or outcome.partial
    assert message is not None
    return message.model_dump(mode="json", exclude_none=True)
