"""A loopback HTTP endpoint in front of a check's transport, for a runtime in another process.

The program under test sends real HTTP to `base_url` (127.0.0.1, a port of its own per call, so it
is scoped to the one scenario being checked); each request is handed to the check's transport with
the provider's own origin and path, exactly as an in-process runtime would have sent it, and the
transport's answer is written back. The time between an answer and the next request is the
program's wait: a gap of at least `MIN_WAIT_S` is recorded on the check's clock (`sleep_sync`),
so the retry check judges waits that really passed. An exception from the transport (a request
no recorded interaction matches) is answered with status 599 and raised again after the call
(`raise_transport_error`), so the row reads as it would in process.
"""

from __future__ import annotations

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx

MIN_WAIT_S = 0.3
"""A gap between an answer and the next request shorter than this is the program's own work, not a wait."""

_HOP = frozenset({"content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive"})


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client closing its kept-alive connection is no error; anything else is printed as usual."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Loopback:
    """Serve `transport` at a fresh loopback port while the `with` block runs."""

    def __init__(self, transport: Any, provider_base_url: str, clock: Any) -> None:
        parts = urlsplit(provider_base_url)
        self._origin = f"{parts.scheme}://{parts.netloc}"
        self._path = parts.path.rstrip("/")
        self._transport, self._clock = transport, clock
        self._lock = threading.Lock()
        self._last: float | None = None
        self.error: BaseException | None = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                owner._serve(self)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _any

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The provider's base URL, moved to this endpoint (same path: `…/v1`, `/v1beta`, …)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self._path}"

    def __enter__(self) -> Loopback:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def raise_transport_error(self) -> None:
        if self.error is not None:
            raise self.error

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        arrived = time.monotonic()
        with self._lock:
            if self._last is not None and self._clock is not None and arrived - self._last >= MIN_WAIT_S:
                self._clock.sleep_sync(arrived - self._last)
            headers = [(k, v) for k, v in handler.headers.items() if k.lower() not in ("host", "content-length")]
            request = httpx.Request(handler.command, self._origin + handler.path, headers=headers, content=body)
            try:
                response = self._transport.handle_request(request)
                content = response.read()
                status, out_headers = response.status_code, list(response.headers.items())
            except Exception as exc:  # the check reads it after the call, as in process
                self.error = self.error or exc
                status, out_headers, content = 599, [], f"{type(exc).__name__}: {exc}".encode()
        handler.send_response(status)
        for key, value in out_headers:
            if key.lower() not in _HOP:
                handler.send_header(key, value)
        handler.send_header("content-length", str(len(content)))
        handler.end_headers()
        handler.wfile.write(content)
        handler.wfile.flush()
        with self._lock:
            self._last = time.monotonic()


__all__ = ["MIN_WAIT_S", "Loopback"]
