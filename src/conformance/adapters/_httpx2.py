"""The `httpx` ↔ `httpx2` bridge for SDKs built on `httpx2` (requires the `httpx2` package)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import httpx

from conformance.adapters._serve import ChunkStream, served_headers

try:
    import httpx2
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("the httpx2 bridge needs the `httpx2` package: pip install httpx2") from exc


class Httpx2Transport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """An `httpx2` transport that forwards to an `httpx` transport (the harness's), bodies unchanged."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @staticmethod
    def _request(request: Any, body: bytes) -> httpx.Request:
        return httpx.Request(
            request.method, str(request.url), headers=list(request.headers.multi_items()), content=body
        )

    @staticmethod
    def _response(response: httpx.Response, body: bytes) -> Any:
        return httpx2.Response(response.status_code, headers=list(response.headers.multi_items()), content=body)

    def handle_request(self, request: Any) -> Any:
        """Forward one sync request."""
        response = self._inner.handle_request(self._request(request, request.read()))
        return self._response(response, response.read())

    async def handle_async_request(self, request: Any) -> Any:
        """Forward one async request."""
        response = await self._inner.handle_async_request(self._request(request, await request.aread()))
        return self._response(response, await response.aread())


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
