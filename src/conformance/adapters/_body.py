"""A recorded body as an `httpx` response stream, ending as it ended on the transport."""

from __future__ import annotations

from typing import Any

import httpx

from conformance.adapters._serve import ChunkStream
from conformance.replay.faults import DroppingStream
from conformance.runtime.dropped import drop_error, received


def recorded_response(status: int, headers: dict[str, str], chunks: list[bytes], request: Any = None) -> httpx.Response:
    """An `httpx.Response` (sync and async) of one recorded answer, for an `httpx.MockTransport`
    handler (the decode pattern): its body yields `chunks`; when their connection dropped (a
    `runtime.dropped.DroppedChunks`), reading on raises `httpx.RemoteProtocolError`, as from a socket."""
    arrived = received(chunks)
    # never joined: each chunk is one read of the body, so the library's stream decoder gets the row's boundaries
    stream = ChunkStream(arrived) if drop_error(chunks) is None else DroppingStream(arrived, request)
    return httpx.Response(status, headers=list(headers.items()), stream=stream, request=request)
