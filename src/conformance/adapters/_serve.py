"""One recorded response served to any HTTP stack, body in the chunks the row hands over.

- `httpx_transport(status, headers, chunks)`: an `httpx` transport (sync and async clients);
- `mock_transport(...)` (in `_httpx2`): the same for `httpx2` clients;
- `serve_response(status, headers, chunks)`: a loopback URL (`http://127.0.0.1:PORT`) answering
  every request with the response, each chunk written and flushed on its own (chunked transfer
  encoding), for any client: aiohttp, requests, urllib, another process.

Each chunk reaches the library as one read of the wire (a streamed body is never joined first), so
a row that cuts a stream into pieces judges the library's own stream decoder on those boundaries.
When iterating `chunks` raises (a connection cut after the bytes that came: `DroppedChunks`), the
transports raise `httpx.RemoteProtocolError` to the reader and the loopback closes the connection
mid-body, as a real cut does.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from conformance.runtime.loopback import STOP_POLL_S

_HOP = frozenset({"content-length", "transfer-encoding", "content-encoding", "connection"})
"""Recorded bodies are stored decoded and whole: these headers no longer describe them."""


def served_headers(headers: dict[str, str]) -> list[tuple[str, str]]:
    """The recorded headers a served body keeps (the ones describing a transfer encoding dropped)."""
    return [(k, v) for k, v in headers.items() if k.lower() not in _HOP]


def _cut(exc: BaseException) -> httpx.RemoteProtocolError:
    return exc if isinstance(exc, httpx.RemoteProtocolError) else httpx.RemoteProtocolError(str(exc) or "cut")


class ChunkStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A body delivered chunk by chunk, sync or async: one read per recorded chunk."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self._chunks:
                if chunk:
                    yield bytes(chunk)
        except httpx.TransportError:
            raise
        except Exception as exc:  # a cut connection: the reader sees the transport's own error
            raise _cut(exc) from exc

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self:
            yield chunk


class _Answer(httpx.BaseTransport, httpx.AsyncBaseTransport):
    def __init__(self, status: int, headers: dict[str, str], chunks: Iterable[bytes]) -> None:
        self._status, self._headers, self._chunks = status, served_headers(headers), chunks
        self.requests: list[httpx.Request] = []
        """Every request answered (method, URL, headers, body read)."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        return httpx.Response(self._status, headers=self._headers, stream=ChunkStream(self._chunks), request=request)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        self.requests.append(request)
        return httpx.Response(self._status, headers=self._headers, stream=ChunkStream(self._chunks), request=request)


def httpx_transport(status: int, headers: dict[str, str], chunks: Iterable[bytes]) -> _Answer:
    """An `httpx` transport (for `httpx.Client` and `httpx.AsyncClient` alike) answering every
    request with this one recorded response, its body streamed in `chunks` (the decode pattern)."""
    return _Answer(status, headers, chunks)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up early (a library giving up on a cut stream) is no error of the server's."""


class Served:
    """A loopback endpoint answering every request with one recorded response (`serve_response`)."""

    def __init__(self, status: int, headers: dict[str, str], chunks: Iterable[bytes]) -> None:
        owner = self
        self.requests: list[tuple[str, str, bytes]] = []
        """Every request answered: (method, path, body)."""

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                owner.requests.append((self.command, self.path, self.rfile.read(length) if length else b""))
                self.send_response(status)
                for key, value in served_headers(headers):
                    self.send_header(key, value)
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                try:
                    for chunk in chunks:
                        if chunk:
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                            self.wfile.flush()
                            # give up the GIL: a reader in this process (a library's event loop
                            # or thread) reads this chunk before the next is written beside it
                            time.sleep(0)
                except Exception:  # a cut connection: closed mid-body, no last chunk
                    self.close_connection = True
                    return
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _any

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": STOP_POLL_S}, daemon=True
        )

    @property
    def url(self) -> str:
        """`http://127.0.0.1:PORT`: put the provider's path after it as a client's base URL."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> Served:
        """Start answering (on a thread of its own)."""
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop answering and free the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


@contextlib.contextmanager
def serve_response(status: int, headers: dict[str, str], chunks: Iterable[bytes]) -> Iterator[Served]:
    """A loopback URL (`.url`) answering every request with this recorded response, each chunk
    flushed on its own: the decode pattern for a client that takes no transport (aiohttp,
    requests, a program in another process). Closed on exit."""
    served = Served(status, headers, chunks).start()
    try:
        yield served
    finally:
        served.close()


__all__ = ["ChunkStream", "Served", "httpx_transport", "serve_response", "served_headers"]
