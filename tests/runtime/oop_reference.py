"""The reference runtime behind the out-of-process protocol (JSON lines on stdin/stdout): a test fixture.

Run as `python oop_reference.py`; it must earn exactly the in-process reference's verdicts. Requests
of `turn` and `context` go to the loopback base URL the harness hands over; waits are real.
`FAULT` (environment) makes it misbehave: `ignore-cancel` reads the `cancel` lines of `agent` and
does nothing with them; for the protocol-fault tests, `crash-at-start`,
`unknown-capability` and `slow-start` (`SLOW_START_S` seconds, 3 unless set) at start-up; `crash`, `exit`, `hang`, `non-json`, `wrong-id` on
every third call (every `FAULT_EVERY`th); `exit-then-X` exits on the third call and then, from the next start on (a file
at `FAULT_MARK` remembers), behaves as `X`. `SILENT_WAITS` keeps its waits to itself (no `waited` in a
`turn` answer). `LIVE_DIR` makes it count the programs alive (`count_live`)."""

from __future__ import annotations

import atexit
import base64
import json
import os
import queue
import sys
import threading
import time
import traceback
from typing import Any
from urllib.parse import urlsplit

import httpx

from conformance.runtime.dropped import DroppedChunks
from conformance.runtime.protocol import AgentRequest, CancelSignal, TurnRequest
from conformance.runtime.reference import ReferenceRuntime

REF = ReferenceRuntime()
FAULT = os.environ.get("FAULT", "")
EVERY = int(os.environ.get("FAULT_EVERY", "3"))
if FAULT.startswith("exit-then-"):
    FAULT = FAULT.removeprefix("exit-then-") if os.path.exists(os.environ["FAULT_MARK"]) else "exit-then"
SESSIONS: dict[int, Any] = {}
CANCELS: dict[int, CancelSignal] = {}
"""The cancel signal of each call in progress, by id (`cancel` lines arrive while it runs)."""


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


def handshake() -> dict[str, Any]:
    caps = sorted(METHODS)
    if FAULT == "unknown-capability":
        caps.append("teleport")
    return {
        "protocol": 1,
        "name": "reference-oop",
        "version": "1",
        "capabilities": caps,
        "providers": None,
        "features": None,
        "not_offered": [],
        "exposed_fields": None,
    }


def read(lines: queue.Queue[dict[str, Any] | None]) -> None:
    """stdin's requests into `lines`; a `cancel` comes while its call runs: routed at once, never queued."""
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("method") == "cancel":
            if FAULT != "ignore-cancel":
                CANCELS.setdefault(msg["params"]["id"], CancelSignal()).set()
        else:
            lines.put(msg)
    lines.put(None)


def count_live() -> None:
    """With `LIVE_DIR` set: a file named by this program's id while it runs, and, as it starts, how
    many such files there are (itself included) in `peak-<pid>` (the protocol tests count programs)."""
    live = os.environ.get("LIVE_DIR")
    if not live:
        return
    mine = os.path.join(live, str(os.getpid()))
    open(mine, "w").close()
    alive = sum(1 for name in os.listdir(live) if name.isdigit())
    with open(os.path.join(live, f"peak-{os.getpid()}"), "w") as out:
        out.write(str(alive))
    atexit.register(os.remove, mine)


def main() -> None:
    count_live()
    if FAULT == "crash-at-start":
        print("cannot load the library", file=sys.stderr)
        sys.exit(3)
    if FAULT == "slow-start":
        time.sleep(float(os.environ.get("SLOW_START_S", "3")))
    calls = 0
    lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
    threading.Thread(target=read, args=(lines,), daemon=True).start()
    for msg in iter(lines.get, None):
        method, ident = msg["method"], msg["id"]
        if method == "shutdown":
            print(json.dumps({"id": ident, "result": None}), flush=True)
            return
        if method == "handshake":
            print(json.dumps({"id": ident, "result": handshake()}), flush=True)
            continue
        calls += 1
        if FAULT and FAULT not in ("slow-start", "unknown-capability", "ignore-cancel") and calls % EVERY == 0:
            print(f"fault {FAULT} on call {calls}", file=sys.stderr, flush=True)
            if FAULT == "crash":
                raise RuntimeError("boom mid-run")
            if FAULT == "exit":
                sys.exit(0)
            if FAULT == "exit-then":
                with open(os.environ["FAULT_MARK"], "w") as mark:
                    mark.write("exited")
                sys.exit(0)
            if FAULT == "hang":
                time.sleep(3600)
            if FAULT == "non-json":
                print("this is not json", flush=True)
                continue
            if FAULT == "wrong-id":
                print(json.dumps({"id": ident + 1000, "result": {}}), flush=True)
                continue
        try:
            answer: dict[str, Any] = {"id": ident, "result": dispatch(method, ident, msg.get("params") or {})}
        except Exception as exc:
            answer = {
                "id": ident,
                "error": {"type": type(exc).__name__, "message": str(exc), "traceback": traceback.format_exc()},
            }
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
