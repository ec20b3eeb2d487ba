"""Answering a request that asks for a stream the recording did not: the same answer, streamed.

A provider delivers one answer either whole or as a stream, chosen by the request's delivery keys
(`RequestTable.delivery`: `stream` and `stream_options` for OpenAI Chat Completions, `stream` for
Anthropic Messages and Ollama, each citing the provider's reference). A runtime that always asks
for a stream (pi-ai does) sends a request that differs from a non-streamed recording in those keys
alone: `delivered` takes it as that recording's request (the differences as notes), and `restreamed`
writes the recorded answer as the stream it asked for — a successful answer in the dialect's stream
form (`Codec.restream`), an error as recorded, same status and body (an error is not streamed).
Gemini asks for a stream by its address (`RequestTable.stream_addresses`: `:streamGenerateContent`
with `alt=sse` for `:generateContent`): the player and the emulator take such an address as the
recorded one and answer it streamed the same way. A dialect without a stream writer (OpenAI
Responses) matches as before.
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs import codec_for
from conformance.codecs.base import decode_response, load_json
from conformance.codecs.request_form import RequestFinding, failing, request_findings, request_table
from conformance.exceptions import WireFormatError

_HOP = frozenset({"content-type", "content-length", "content-encoding", "transfer-encoding"})


def delivered(profile: ProviderProfile | None, recorded: Any, sent: Any) -> list[RequestFinding] | None:
    """The findings when `sent` asks for a stream where `recorded` did not and differs from it in
    delivery keys alone (those differences as notes); None otherwise."""
    if profile is None or not isinstance(recorded, dict) or not isinstance(sent, dict):
        return None
    table = request_table(profile.dialect)
    if not table.delivery or codec_for(profile).restream is None:
        return None
    if not table.asks_stream(sent) or table.asks_stream(recorded):
        return None
    findings = request_findings(profile, recorded, sent, delivery_free=True)
    return None if failing(findings) else findings


def restreamed(
    profile: ProviderProfile, status: int, headers: list[tuple[str, str]], body: bytes, sent: Any
) -> tuple[list[tuple[str, str]], bytes]:
    """The recorded answer (`headers`, `body`) as the stream `sent` asked for: a successful JSON answer
    the dialect reads as a message, re-encoded in its stream form; anything else as recorded."""
    codec = codec_for(profile)
    if codec.restream is None or status >= 400:
        return headers, body
    flat = dict(headers)
    try:
        if decode_response(codec, profile, status, flat, body).error is not None:
            return headers, body  # an error in a 200 body (xAI): not a message to stream
        stream = codec.restream(load_json(body), sent)
    except (WireFormatError, ValueError, TypeError, KeyError, AttributeError):
        return headers, body
    kept = [(k, v) for k, v in headers if k.lower() not in _HOP]
    return [*kept, ("content-type", codec.stream_content_types[0])], stream


__all__ = ["delivered", "restreamed"]
