"""Helpers for the Ollama codec tests: NDJSON bodies from hand-written records, re-chunked runs."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import strategies as st

from conformance.capabilities import get_profile
from conformance.codecs.base import decode_response
from conformance.codecs.ollama import CODEC
from conformance.model import AssistantMessage, Outcome, StreamEvent

PROFILE = get_profile("ollama")


def ndjson(*records: str) -> bytes:
    return "".join(f"{r}\n" for r in records).encode()


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = [0, *sorted(set(cuts)), len(body)]
    return [body[a:b] for a, b in pairwise(points)]


def run(body: bytes, cuts: list[int] | None = None) -> tuple[list[StreamEvent], AssistantMessage]:
    acc = CODEC.stream(PROFILE)
    events: list[StreamEvent] = []
    for chunk in split(body, cuts or []):
        events.extend(acc.feed(chunk))
    return events, acc.finish()


def outcome(status: int, body: bytes, *, stream: bool, headers: dict[str, str] | None = None) -> Outcome:
    return decode_response(CODEC, PROFILE, status, headers or {}, body, stream_hint=stream)


@st.composite
def cuts(draw: st.DrawFn, body: bytes) -> list[int]:
    if len(body) < 2:
        return []
    return draw(st.lists(st.integers(min_value=1, max_value=len(body) - 1), max_size=40))
