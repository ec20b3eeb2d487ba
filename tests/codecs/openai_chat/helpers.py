"""Build chat.completion.chunk SSE bodies and decode them whole and re-chunked."""

from __future__ import annotations

from typing import Any

import orjson

from conformance.capabilities import get_profile
from conformance.codecs import decode_response
from conformance.codecs.openai_chat import CODEC
from conformance.model import Outcome

SSE = {"content-type": "text/event-stream"}


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m-1", "choices": choices, **extra}


def sse(*payloads: Any, done: bool = True, event: str | None = None) -> bytes:
    out = b""
    for p in payloads:
        data = p if isinstance(p, bytes) else orjson.dumps(p)
        out += (f"event: {event}\n".encode() if event else b"") + b"data: " + data + b"\n\n"
    return out + (b"data: [DONE]\n\n" if done else b"")


def decode_stream(body: bytes, provider: str = "openai", chunks: list[bytes] | None = None) -> Outcome:
    profile = get_profile(provider)
    return decode_response(CODEC, profile, 200, SSE, body, stream_hint=True, chunks=chunks)


def decode_json(
    data: Any, provider: str = "openai", status: int = 200, headers: dict[str, str] | None = None
) -> Outcome:
    profile = get_profile(provider)
    return decode_response(
        CODEC, profile, status, {"content-type": "application/json", **(headers or {})}, orjson.dumps(data)
    )


def every_split(body: bytes, provider: str = "openai") -> Outcome:
    """Decode whole, then split at every byte: all must agree; returns the outcome."""
    whole = decode_stream(body, provider)
    for i in range(1, len(body)):
        assert decode_stream(body, provider, [body[:i], body[i:]]) == whole, f"split at {i}"
    return whole
