"""Helpers for the Gemini codec tests: SSE bodies from hand-written JSON, and re-chunked runs."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import strategies as st

from conformance.capabilities import get_profile
from conformance.codecs.base import decode_response
from conformance.codecs.gemini import CODEC
from conformance.model import AssistantMessage, Outcome, StreamEvent

PROFILE = get_profile("gemini")


def sse(*events: str, eol: str = "\r\n") -> bytes:
    """`data:` events as Gemini frames them (each JSON event text written by hand)."""
    return "".join(f"data: {e}{eol}{eol}" for e in events).encode()


def run(body: bytes, cuts: list[int] | None = None) -> tuple[list[StreamEvent], AssistantMessage]:
    """Feed `body` split at `cuts`; all events and the final message."""
    acc = CODEC.stream(PROFILE)
    events: list[StreamEvent] = []
    for chunk in split(body, cuts or []):
        events.extend(acc.feed(chunk))
    return events, acc.finish()


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = [0, *sorted(set(cuts)), len(body)]
    return [body[a:b] for a, b in pairwise(points)]


def outcome(status: int, body: bytes, *, stream: bool, headers: dict[str, str] | None = None) -> Outcome:
    return decode_response(CODEC, PROFILE, status, headers or {}, body, stream_hint=stream)


@st.composite
def cuts(draw: st.DrawFn, body: bytes) -> list[int]:
    """Any set of split points, single bytes included (multibyte characters get split too)."""
    if len(body) < 2:
        return []
    return draw(st.lists(st.integers(min_value=1, max_value=len(body) - 1), max_size=40))
