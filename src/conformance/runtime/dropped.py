"""A response body whose connection dropped, as the `decode` capability receives it.

When the peer closes the connection in the middle of a body (no terminating chunk, fewer bytes
than `content-length`), an HTTP client hands over the bytes that arrived and then raises: `httpx`
and `httpx2` raise `RemoteProtocolError("peer closed connection without sending complete message
body (incomplete chunked read)")` (measured against a loopback socket that closes mid-body). The
harness hands such a body to an in-process `decode` the same way: `chunks` is a `DroppedChunks`, a
list of the bytes that arrived whose iteration yields them and then raises that error, each time it
is iterated, as a socket read would. `len`, indexing and `received` read the bytes without the
error; `drop_error` tells whether a body dropped. Over JSON lines the same body is its chunks and
`"dropped": true` (docs/other-runtimes.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import httpx

DROP_MESSAGE = "peer closed connection without sending complete message body (incomplete chunked read)"
"""What `httpx` and `httpx2` say when the peer closes the connection mid-body (chunked transfer)."""


class DroppedChunks(list[bytes]):
    """The chunks that arrived before the connection dropped: iterating yields them, then raises
    the transport's error (`httpx.RemoteProtocolError`, unless another is given)."""

    def __init__(self, chunks: Iterable[bytes], error: BaseException | None = None) -> None:
        super().__init__(chunks)
        self.error = error if error is not None else httpx.RemoteProtocolError(DROP_MESSAGE)

    def __iter__(self) -> Iterator[bytes]:
        yield from list.__iter__(self)
        raise self.error

    def __reduce__(self) -> tuple[type[DroppedChunks], tuple[list[bytes], BaseException]]:
        """Copied and pickled as the chunks and the error (a plain list's way would iterate, and raise)."""
        return (DroppedChunks, (list(list.__iter__(self)), self.error))

    def __repr__(self) -> str:
        return f"DroppedChunks({list.__repr__(self)}, dropped: {self.error!r})"


def received(chunks: list[bytes]) -> list[bytes]:
    """The bytes that arrived, as a plain list (never raising)."""
    return list(list.__iter__(chunks))


def drop_error(chunks: list[bytes]) -> BaseException | None:
    """The error that ended the body when its connection dropped; None when it ended cleanly."""
    return chunks.error if isinstance(chunks, DroppedChunks) else None


__all__ = ["DROP_MESSAGE", "DroppedChunks", "drop_error", "received"]
