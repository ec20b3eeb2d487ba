"""The methods of `oop_reference.py`'s program: the reference runtime behind each call (a test fixture).

Imported by the program once it is to answer calls: a program that faults at start-up, or is refused
at its handshake, never loads the reference runtime. Requests of `turn` and `context` go to the
loopback base URL the harness hands over; waits are real."""

from __future__ import annotations

import base64
import os
import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from conformance.runtime.dropped import DroppedChunks
from conformance.runtime.protocol import AgentRequest, CancelSignal, TurnRequest
from conformance.runtime.reference import ReferenceRuntime

REF = ReferenceRuntime()
SESSIONS: dict[int, Any] = {}
CANCELS: dict[int, CancelSignal] = {}
"""The cancel signal of each call in progress, by id (`cancel` lines arrive while it runs)."""


def cancel(ident: int) -> None:
    """A `cancel` line for call `ident`: its signal set, whether the call has begun or not."""
    CANCELS.setdefault(ident, CancelSignal()).set()


class RealClock:
    """Waits that really pass, each kept to tell the harness (`waited`)."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        self.sleep_sync(seconds)

    def sleep_sync(self, seconds: float) -> None:
        self.sleeps.append(max(seconds, 0.0))
        time.sleep(max(seconds, 0.0))


class Redirect(httpx.AsyncBaseTransport, httpx.BaseTransport):
    """Send every request to the harness's loopback origin, path and query kept."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.scheme, self.host, self.port = parts.scheme, parts.hostname or "127.0.0.1", parts.port
        self.sync, self.aio = httpx.HTTPTransport(), httpx.AsyncHTTPTransport()

    def _move(self, request: httpx.Request) -> httpx.Request:
        if request.url.host == "127.0.0.1":  # already a loopback port of the harness's (a fallback provider's)
            return request
        request.url = request.url.copy_with(scheme=self.scheme, host=self.host, port=self.port)
        return request

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.sync.handle_request(self._move(request))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.aio.handle_async_request(self._move(request))


def store(p: dict[str, Any]) -> Any:
    op = p["op"]
    if op == "open":
        handle = len(SESSIONS) + 1
        SESSIONS[handle] = REF.store_session(p["backend"], p["directory"], p.get("options"))
        return {"handle": handle}
    session = SESSIONS[p["handle"]]
    if op == "apply":
        return session.apply(p["operation"])
    if op == "close":
        SESSIONS.pop(p["handle"]).close()
        return None
    return getattr(session, op)()


def turn(p: dict[str, Any]) -> Any:
    from conformance.capabilities import get_profile

    clock = RealClock()
    request = TurnRequest(
        provider=p["provider"],
        conversation=p["conversation"],
        transport=Redirect(p["base_url"]),
        base_url=get_profile(p["provider"]).base_url,
        keys=p["keys"],
        clock=clock,
        settings=p.get("settings") or {},
    )
    answer = REF.turn(request)
    return answer if os.environ.get("SILENT_WAITS") else {**answer, "waited": clock.sleeps}


def agent(p: dict[str, Any], cancel: CancelSignal) -> Any:
    from conformance.capabilities import get_profile

    request = AgentRequest(
        provider=p["provider"],
        conversation=p["conversation"],
        transport=Redirect(p["base_url"]),
        base_url=get_profile(p["provider"]).base_url,
        keys=p["keys"],
        tool_url=p["tool_url"],
        cancel=cancel,
        settings=p.get("settings") or {},
    )
    return REF.agent_turn(request)


def context(p: dict[str, Any]) -> Any:
    return REF.context(p["request"], Redirect(p["base_url"]) if p.get("base_url") else None)


def _chunks(p: dict[str, Any]) -> list[bytes]:
    """The chunks of a `decode` call; `"dropped": true`: the connection dropped after them."""
    chunks = [base64.b64decode(c) for c in p["chunks"]]
    return DroppedChunks(chunks) if p.get("dropped") else chunks


METHODS = {
    "encode": lambda p: REF.encode(p["conversation"], p["provider"]),
    "decode": lambda p: REF.decode(p["provider"], p["status"], p["headers"], _chunks(p), p["stream"]),
    "repair": lambda p: REF.repair(p["messages"], p["provider"], p.get("model"), p.get("options")),
    "transcripts": lambda p: REF.load_transcript(p["path"]),
    "turn": turn,
    "context": context,
    "store": store,
    "agent": lambda p: None,  # answered by `dispatch`, with the call's cancel signal
}


def dispatch(method: str, ident: int, params: dict[str, Any]) -> Any:
    if method != "agent":
        return METHODS[method](params)
    try:
        return agent(params, CANCELS.setdefault(ident, CancelSignal()))
    finally:
        CANCELS.pop(ident, None)
