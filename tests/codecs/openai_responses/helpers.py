"""Build Responses bodies (JSON and SSE) and decode them whole and re-chunked."""

from __future__ import annotations

from typing import Any

import orjson

from conformance.capabilities import get_profile
from conformance.codecs import decode_response
from conformance.codecs.openai_responses import CODEC
from conformance.model import Outcome

SSE = {"content-type": "text/event-stream; charset=utf-8"}
USAGE = {
    "input_tokens": 120,
    "input_tokens_details": {"cached_tokens": 100},
    "output_tokens": 48,
    "output_tokens_details": {"reasoning_tokens": 30},
    "total_tokens": 168,
}


def response(output: list[dict[str, Any]], status: str = "completed", **extra: Any) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1763474589,
        "status": status,
        "model": "gpt-5-mini-2025-08-07",
        "error": None,
        "incomplete_details": None,
        "output": output,
        "usage": USAGE,
        **extra,
    }


def sse(*events: dict[str, Any] | bytes, done: bool = False) -> bytes:
    """`event: <type>` + `data:` frames with sequence numbers, as the API frames them."""
    out = b""
    for n, e in enumerate(events):
        if isinstance(e, bytes):
            out += e
            continue
        data = {"type": e["type"], "sequence_number": n, **{k: v for k, v in e.items() if k != "type"}}
        out += f"event: {e['type']}\n".encode() + b"data: " + orjson.dumps(data) + b"\n\n"
    return out + (b"data: [DONE]\n\n" if done else b"")


def decode_stream(body: bytes, provider: str = "openai_responses", chunks: list[bytes] | None = None) -> Outcome:
    return decode_response(CODEC, get_profile(provider), 200, SSE, body, stream_hint=True, chunks=chunks)


def decode_json(data: Any, provider: str = "openai_responses", status: int = 200) -> Outcome:
    headers = {"content-type": "application/json"}
    return decode_response(CODEC, get_profile(provider), status, headers, orjson.dumps(data))


def every_split(body: bytes, provider: str = "openai_responses") -> Outcome:
    whole = decode_stream(body, provider)
    for i in range(1, len(body), 3):
        assert decode_stream(body, provider, [body[:i], body[i:]]) == whole, f"split at {i}"
    return whole
