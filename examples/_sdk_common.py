"""What the SDK adapters share: the SDK's sleep on the harness clock, an httpx2 view of the
harness's httpx transport, and the conversation as plain SDK call arguments.

Nothing here decides what the SDK does: the sleep patch only reroutes the SDK's own `time.sleep` /
`anyio.sleep` (with the duration the SDK computed) to the harness clock, and the transport bridge
only copies requests and responses between the two httpx packages.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import httpx2

from conformance.exceptions import InputError
from conformance.replay.player import ReplayMismatch
from conformance.runtime.protocol import TurnClock


class _ClockTime:
    """A stand-in for the `time` module inside one SDK module: `sleep` waits on the harness clock."""

    def __init__(self, clock: TurnClock) -> None:
        self._clock = clock

    def sleep(self, seconds: float) -> None:
        self._clock.sleep_sync(seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


class _ClockAnyio:
    """A stand-in for `anyio` inside one SDK module: `sleep` waits on the harness clock."""

    def __init__(self, clock: TurnClock, anyio: ModuleType) -> None:
        self._clock, self._anyio = clock, anyio

    async def sleep(self, seconds: float) -> None:
        await self._clock.sleep(seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._anyio, name)


@contextlib.contextmanager
def sdk_sleeps_on(clock: TurnClock, *modules: ModuleType) -> Iterator[None]:
    """For the duration of the block, the retry loops of `modules` (an SDK's `_base_client`) sleep on
    `clock`: the sync loop's `time.sleep` and the async loop's `anyio.sleep`."""
    saved = [(m, m.__dict__.get("time"), m.__dict__.get("anyio")) for m in modules]
    try:
        for module, real_time, real_anyio in saved:
            if real_time is not None:
                module.time = _ClockTime(clock)  # type: ignore[attr-defined]
            if real_anyio is not None:
                module.anyio = _ClockAnyio(clock, real_anyio)  # type: ignore[attr-defined]
        yield
    finally:
        for module, real_time, real_anyio in saved:
            if real_time is not None:
                module.time = real_time  # type: ignore[attr-defined]
            if real_anyio is not None:
                module.anyio = real_anyio  # type: ignore[attr-defined]


class Httpx2Transport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """An `httpx2` transport (for SDKs built on `httpx2`) that forwards to an `httpx` transport."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @staticmethod
    def _request(request: httpx2.Request, body: bytes) -> httpx.Request:
        return httpx.Request(
            request.method, str(request.url), headers=list(request.headers.multi_items()), content=body
        )

    @staticmethod
    def _response(response: httpx.Response, body: bytes) -> httpx2.Response:
        return httpx2.Response(response.status_code, headers=list(response.headers.multi_items()), content=body)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = self._inner.handle_request(self._request(request, request.read()))
        return self._response(response, response.read())

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(self._request(request, await request.aread()))
        return self._response(response, await response.aread())


def mock_transport(status: int, headers: dict[str, str], chunks: list[bytes]) -> httpx2.MockTransport:
    """An `httpx2` transport answering every request with this one recorded response."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, headers=list(headers.items()), content=b"".join(chunks), request=request)

    return httpx2.MockTransport(handler)


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def conversation_parts(conversation: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    """(messages, options, model) of a CONVERSATION.json, checked enough to name what is wrong."""
    messages = conversation.get("messages")
    if not isinstance(messages, list):
        raise InputError("`messages` must be a list", where="conversation")
    options = conversation.get("options") or {}
    return messages, dict(options), str(conversation.get("model") or "")


def arguments_json(block: dict[str, Any]) -> str:
    return json.dumps(block.get("arguments") or {}, separators=(",", ":"))


def reraise_replay_mismatch(exc: BaseException) -> None:
    """Re-raise the harness's "request not in cassette" signal when a library wrapped it (as a
    connection error, say): it is the harness's verdict to give, not an outcome of the runtime."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ReplayMismatch):
            raise current
        seen.add(id(current))
        current = current.__cause__ or current.__context__


def failed(error: dict[str, Any], partial: dict[str, Any] | None) -> dict[str, Any]:
    """The outcome of a response that failed after `partial` arrived: the partial message carries the
    error too (docs/normalized-form.md); an error event sent by the provider ends it with `error`."""
    if partial is not None:
        partial = {**partial, "error": error}
        if error["kind"] != "stream_interrupted":
            partial["stop_reason"] = "error"
    return {"error": error, "partial": partial}
