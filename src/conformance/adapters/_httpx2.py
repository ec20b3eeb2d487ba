"""The `httpx` ↔ `httpx2` bridge for SDKs built on `httpx2` (requires the `httpx2` package).

Faults cross the bridge as the SDK's own transport would raise them: a connection that drops
mid-body yields the bytes that arrived and then raises `httpx2.RemoteProtocolError`; a reset or a
timeout before any byte raises `httpx2.ReadError` / `httpx2.ReadTimeout` (`replay.faults`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import httpx

from conformance.adapters._serve import ChunkStream, served_headers

try:
    import httpx2
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("the httpx2 bridge needs the `httpx2` package: pip install httpx2") from exc


def translated(exc: httpx.TransportError, request: Any = None) -> Exception:
    """The `httpx2` error of the same name (`RemoteProtocolError`, `ReadError`, `ReadTimeout`, …)."""
    cls = getattr(httpx2, type(exc).__name__, None)
    if not (isinstance(cls, type) and issubclass(cls, httpx2.TransportError)):
        cls = httpx2.TimeoutException if isinstance(exc, httpx.TimeoutException) else httpx2.TransportError
    error: Exception = cls(str(exc), request=request)
    return error


class _Body(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A body that yields the bytes that arrived and then raises what ended it (None: a clean end)."""

    def __init__(self, parts: Iterable[bytes], error: BaseException | None, request: Any) -> None:
        self._parts, self._error, self._request = list(parts), error, request

    def _raise(self) -> None:
        if self._error is not None:
            raise (
                translated(self._error, self._request) if isinstance(self._error, httpx.TransportError) else self._error
            )

    def __iter__(self) -> Iterator[bytes]:
        yield from self._parts
        self._raise()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self._parts:
            yield part
        self._raise()


class Httpx2Transport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """An `httpx2` transport that forwards to an `httpx` transport (the harness's), bodies and
    transport errors unchanged (an `httpx` error becomes the `httpx2` error of the same name)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @staticmethod
    def _request(request: Any, body: bytes) -> httpx.Request:
        return httpx.Request(
            request.method, str(request.url), headers=list(request.headers.multi_items()), content=body
        )

    @staticmethod
    def _response(response: httpx.Response, parts: list[bytes], error: BaseException | None, request: Any) -> Any:
        headers = list(response.headers.multi_items())
        return httpx2.Response(response.status_code, headers=headers, stream=_Body(parts, error, request))

    def handle_request(self, request: Any) -> Any:
        """Forward one sync request."""
        try:
            response = self._inner.handle_request(self._request(request, request.read()))
        except httpx.TransportError as exc:
            raise translated(exc, request) from exc
        parts: list[bytes] = []
        try:
            parts.extend(response.iter_bytes())
        except httpx.TransportError as exc:  # the connection dropped mid-body
            return self._response(response, parts, exc, request)
        return self._response(response, parts, None, request)

    async def handle_async_request(self, request: Any) -> Any:
        """Forward one async request."""
        try:
            response = await self._inner.handle_async_request(self._request(request, await request.aread()))
        except httpx.TransportError as exc:
            raise translated(exc, request) from exc
        parts: list[bytes] = []
        try:
            async for part in response.aiter_bytes():
                parts.append(part)
        except httpx.TransportError as exc:  # the connection dropped mid-body
            return self._response(response, parts, exc, request)
        return self._response(response, parts, None, request)


class _Chunks(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A body delivered chunk by chunk (one read per recorded chunk); a cut raises httpx2's own error."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from ChunkStream(self._chunks)
        except httpx.TransportError as exc:
            raise httpx2.RemoteProtocolError(str(exc)) from exc

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self:
            yield chunk


def mock_transport(status: int, headers: dict[str, str], chunks: Iterable[bytes]) -> Any:
    """An `httpx2` transport (sync and async clients) answering every request with this one recorded
    response, its body streamed in `chunks` as they are (the decode pattern). For `httpx` clients:
    `httpx_transport`; for any other: `serve_response`."""

    def handler(request: Any) -> Any:
        return httpx2.Response(status, headers=served_headers(headers), stream=_Chunks(chunks), request=request)

    return httpx2.MockTransport(handler)
