"""How a recorded answer ends on the transport: a cassette's `meta.fault` (docs/reliability.md).

A recorded body is what arrived. How the exchange ended is the cassette's to say, in `meta.fault`:
one kind for every interaction (`fault: drop`), or a mapping from interaction index to kind
(`fault: {0: reset}`); an interaction it does not name ends cleanly.

- `clean_end` — the response ended cleanly where the recording ends (the terminating chunk came,
  or `content-length` bytes), whatever the body's own grammar still expected: a stream without its
  terminal event, read by a client as a complete HTTP response;
- `drop` — the connection closed in the middle of the body: the recorded bytes arrive, then
  reading on raises what `httpx` raises for a peer that closes mid-body,
  `RemoteProtocolError("peer closed connection without sending complete message body (incomplete
  chunked read)")`;
- `reset` — the connection is reset once the request is sent, before any byte of the answer:
  `ReadError("[Errno 104] Connection reset by peer")`; the recorded response is not sent;
- `timeout` — no byte of the answer comes within the client's read timeout: `ReadTimeout`; the
  recorded response is not sent (no clock runs: the timeout is raised at once).

These are what `httpx` (and `httpx2`, its errors named alike) raise, measured against a loopback
socket that closes mid-body, closes before answering with a reset, or never answers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal, cast

import httpx

from conformance.exceptions import CassetteError
from conformance.runtime.dropped import DROP_MESSAGE

FaultKind = Literal["clean_end", "drop", "reset", "timeout"]
FAULT_KINDS: tuple[FaultKind, ...] = ("clean_end", "drop", "reset", "timeout")

RESET_MESSAGE = "[Errno 104] Connection reset by peer"
TIMEOUT_MESSAGE = "The read operation timed out"


def fault_kinds(meta: dict[str, Any], interactions: int, where: str) -> list[FaultKind]:
    """The ending of each of `interactions` recorded answers, as `meta.fault` says (default `clean_end`);
    a malformed `fault` is a `CassetteError` naming the field."""
    raw = meta.get("fault")
    if raw is None:
        return ["clean_end"] * interactions
    here = f"{where}: meta.fault"
    if isinstance(raw, str):
        return [_kind(raw, here)] * interactions
    if not isinstance(raw, dict):
        raise CassetteError(f"expected one of {', '.join(FAULT_KINDS)} or a mapping index → kind", where=here)
    kinds: list[FaultKind] = ["clean_end"] * interactions
    for key, value in raw.items():
        if not isinstance(key, int) or not 0 <= key < interactions:
            raise CassetteError(f"{key!r} is no interaction index (0 to {interactions - 1})", where=here)
        kinds[key] = _kind(value, f"{here}.{key}")
    return kinds


def _kind(value: Any, where: str) -> FaultKind:
    if value not in FAULT_KINDS:
        raise CassetteError(f"unknown fault {value!r}; use {', '.join(FAULT_KINDS)}", where=where)
    return cast(FaultKind, value)


def before_answer(kind: FaultKind, request: httpx.Request) -> httpx.TransportError | None:
    """The error a client sees instead of any answer (`reset`, `timeout`), or None."""
    if kind == "reset":
        return httpx.ReadError(RESET_MESSAGE, request=request)
    if kind == "timeout":
        return httpx.ReadTimeout(TIMEOUT_MESSAGE, request=request)
    return None


class DroppingStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A response body (sync and async) that yields `chunks`, then raises as a peer closing the
    connection mid-body does."""

    def __init__(self, chunks: list[bytes], request: httpx.Request | None = None) -> None:
        self.chunks = chunks
        self.request = request

    def error(self) -> httpx.RemoteProtocolError:
        """The error a read past the last chunk raises."""
        return httpx.RemoteProtocolError(DROP_MESSAGE, request=self.request)

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks
        raise self.error()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
        raise self.error()


def read_until_dropped(response: httpx.Response) -> tuple[bytes, httpx.TransportError | None]:
    """A response's body as far as it arrived, and the transport error that ended it (None: clean)."""
    parts: list[bytes] = []
    try:
        for part in response.iter_bytes():
            parts.append(part)
    except httpx.TransportError as exc:
        return b"".join(parts), exc
    return b"".join(parts), None


__all__ = [
    "FAULT_KINDS",
    "DroppingStream",
    "FaultKind",
    "before_answer",
    "fault_kinds",
    "read_until_dropped",
]
