"""What an `agent` row hands the runtime under test: the provider's answers and tools the harness controls.

`AgentHost` is one transport for both. A request under `TOOL_PATH` is a tool call: the scenario's
script for that call (by arrival order) says how long the tool takes and whether the user cancels as
it starts. Any other request is the provider's, answered from the cassette; with `cancel_stream_at`
a streamed answer is delivered up to that fraction of its bytes, the cancel fires, and the rest
waits. Each answer that waits is `Held`: its rest comes only after the pause, and the harness sees
whether the runtime closed it first (it stopped the tool, or stopped reading). In process the pause
is an `asyncio.sleep` in the response stream; through the loopback server (a runtime in another
process), the server writes the first part, watches the connection for the pause, then the rest.

What the runtime did is read only once every held answer has settled (`AgentHost.settle`): its rest
was delivered, or the runtime closed it. A step may return while a tool or a read it left behind
still runs (in a thread, in a task nobody awaits); judged at the return, such a leak would look
stopped. Settled, a tool left running has received its answer, and a stream read on after the
cancel has been delivered and what follows it (the tool calls) has arrived.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from conformance import jsonvalue
from conformance.runtime.loopback import HELD

TOOL_PATH = "/conformance-tools"
"""Where the harness's tools answer, under the origin of the base URL the runtime is given."""

PAUSE_S = 2.0
"""How long the rest of a cancelled stream waits for the runtime to stop reading."""

SLACK_S = 1.0
"""How long past its pause a held answer may take to settle (a loaded machine's thread start-up)."""

QUIET_S = 0.15
"""After a cancel or a stop, how long no request may come before the step is judged over."""

MAX_SETTLE_S = 3 * PAUSE_S + 10
"""The longest `settle` waits, whatever keeps arriving."""


@dataclass
class Held:
    """An answer whose `tail` comes `pause_s` after its `head`, unless the runtime closes it first."""

    head: bytes
    tail: bytes
    pause_s: float
    after_head: Callable[[], None] = lambda: None
    closed_early: bool = False
    delivered: bool = False
    ended_at: float | None = None
    created: float = field(default_factory=time.monotonic)

    @property
    def settled(self) -> bool:
        """Its rest was delivered, or the runtime closed it first."""
        return self.delivered or self.closed_early

    @property
    def stopped(self) -> bool:
        """The runtime closed it before its rest came (left open, never read on, is not stopped)."""
        return self.closed_early and not self.delivered

    def closed(self) -> None:
        if not self.delivered and not self.closed_early:
            self.closed_early, self.ended_at = True, time.monotonic()

    def done(self) -> None:
        self.delivered, self.ended_at = True, time.monotonic()


class _HeldStream(httpx.AsyncByteStream, httpx.SyncByteStream):
    def __init__(self, held: Held) -> None:
        self.held = held

    async def __aiter__(self) -> AsyncIterator[bytes]:
        held = self.held
        try:
            if held.head:
                yield held.head
            held.after_head()
            await asyncio.sleep(held.pause_s)
            held.done()
            yield held.tail
        finally:
            held.closed()  # a no-op once delivered

    async def aclose(self) -> None:
        self.held.closed()

    def __iter__(self) -> Iterator[bytes]:  # a sync client in process: no pause to watch
        try:
            yield self.held.head
            self.held.after_head()
            time.sleep(self.held.pause_s)
            self.held.done()
            yield self.held.tail
        finally:
            self.held.closed()  # a no-op once delivered

    def close(self) -> None:
        self.held.closed()


@dataclass
class ToolCallSeen:
    """One tool call as the harness's tools saw it."""

    name: str
    arguments: Any
    started: float
    held: Held


@dataclass
class ToolScript:
    """How the harness's tool behaves on one call: how long it takes, and whether the user cancels as it starts."""

    hold_s: float = 0.0
    cancel: bool = False

    @classmethod
    def of(cls, data: Any) -> ToolScript:
        data = dict(data or {})
        return cls(hold_s=float(data.get("hold_s", 0.0)), cancel=bool(data.get("cancel", False)))


@dataclass
class AgentHost(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """The provider's answers (`inner`, a cassette transport) and the harness's tools, as one transport."""

    inner: Any
    cancel: Any
    tools: list[ToolScript] = field(default_factory=list)
    cancel_stream_at: float | None = None
    calls: list[ToolCallSeen] = field(default_factory=list)
    streams: list[Held] = field(default_factory=list)
    requests: list[float] = field(default_factory=list)
    """When each request arrived (the provider's and the tools'), in arrival order."""
    cancelled_at: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _arrived(self) -> None:
        with self._lock:
            self.requests.append(time.monotonic())

    def _fire(self) -> None:
        if self.cancelled_at is None:
            self.cancelled_at = time.monotonic()
        self.cancel.set()

    def held(self) -> list[Held]:
        """Every held answer so far: the tools' and the streams'."""
        with self._lock:
            return [c.held for c in self.calls] + list(self.streams)

    def later_requests(self) -> int:
        """How many requests arrived after the user cancelled."""
        at = self.cancelled_at
        with self._lock:
            return 0 if at is None else sum(1 for t in self.requests if t > at)

    def settle(self, *, slack_s: float = SLACK_S, quiet_s: float = QUIET_S) -> None:
        """Wait until every held answer is settled and, after a cancel or a stop, no request came for
        `quiet_s`: bounded by each answer's own pause plus `slack_s` (an answer left open past that,
        neither read on nor closed, stays unsettled and is judged not stopped)."""
        start = time.monotonic()
        while True:
            now = time.monotonic()
            held = self.held()
            open_ = [h for h in held if not h.settled]
            deadline = max((h.created + h.pause_s + slack_s for h in open_), default=now)
            if open_ and now < deadline:
                time.sleep(0.01)
                continue
            if self.cancelled_at is None and not any(h.closed_early for h in held):
                return
            with self._lock:
                last = self.requests[-1] if self.requests else start
            ends = [h.ended_at for h in held if h.ended_at is not None]
            quiet_since = max([last, *ends])
            if now - quiet_since >= quiet_s or now - start > MAX_SETTLE_S:
                return
            time.sleep(0.01)

    def _tool(self, request: httpx.Request, body: bytes) -> httpx.Response:
        name = request.url.path.removeprefix(TOOL_PATH).strip("/")
        try:
            arguments = jsonvalue.loads(body) if body else None
        except ValueError:  # not JSON, or nested deeper than the harness reads: kept as text
            arguments = body.decode("utf-8", "replace")
        with self._lock:
            index = len(self.calls)
            script = self.tools[index] if index < len(self.tools) else ToolScript()
            answer = f"{name} call {index}: done".encode()
            held = Held(b"", answer, script.hold_s)
            self.calls.append(ToolCallSeen(name, arguments, time.monotonic(), held))
        if script.cancel:
            self._fire()
        return self._held(request, 200, [("content-type", "text/plain; charset=utf-8")], held)

    def _cut(self, request: httpx.Request, response: httpx.Response, body: bytes) -> httpx.Response:
        if self.cancel_stream_at is None or response.status_code >= 400 or not _streamed(response):
            return response
        at = int(len(body) * self.cancel_stream_at)
        held = Held(body[:at], body[at:], PAUSE_S, after_head=self._fire)
        self.streams.append(held)
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in ("content-length",)]
        return self._held(request, response.status_code, headers, held)

    @staticmethod
    def _held(request: httpx.Request, status: int, headers: list[tuple[str, str]], held: Held) -> httpx.Response:
        return httpx.Response(
            status, headers=headers, stream=_HeldStream(held), request=request, extensions={HELD: held}
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self._arrived()
        body = request.read()
        if request.url.path.startswith(TOOL_PATH + "/"):
            return self._tool(request, body)
        response = self.inner.handle_request(request)
        return self._cut(request, response, response.read())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._arrived()
        body = await request.aread()
        if request.url.path.startswith(TOOL_PATH + "/"):
            return self._tool(request, body)
        response = await self.inner.handle_async_request(request)
        return self._cut(request, response, await response.aread())


def _streamed(response: httpx.Response) -> bool:
    kind = response.headers.get("content-type", "")
    return "event-stream" in kind or "ndjson" in kind


__all__ = ["HELD", "PAUSE_S", "QUIET_S", "SLACK_S", "TOOL_PATH", "AgentHost", "Held", "ToolCallSeen", "ToolScript"]
