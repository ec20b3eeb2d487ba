"""A runtime in another process: the runtime protocol over line-delimited JSON on a child's stdin/stdout.

`ProcessRuntime("node adapter.mjs")` is a Python runtime (`runtime.protocol`) whose every capability
is a call to a program the harness starts, so every check runs unchanged through it. The wire
protocol (version 1, docs/other-runtimes.md): one JSON object per line; the harness sends
`{"id", "method", "params"}`, the program answers `{"id", "result"}` or `{"id", "error"}`; the first
call is `handshake`, the last `shutdown`. stderr is free text, its tail shown on faults.

Request-making capabilities (`turn`, `context` compaction) get a loopback base URL served by a
`Loopback` (runtime.loopback) that hands each request to the check's transport, so the requests
the check judges are those the program really sent; waits between them pass in real time and
are recorded on the check's clock as the gaps the program left.

Faults — the program does not start, exits, prints a line that is not JSON, answers another id,
declares an unknown capability, does not answer the handshake within `start_timeout` seconds or
another call within `timeout` seconds, breaks a limit on what it prints (`runtime.program.Limits`)
— raise `RuntimeProcessError` (one line, with the stderr tail): the row being answered is `error`,
the process is stopped with everything it started (`runtime.program`) and the next call starts a
fresh one. Each thread of a run gets a program of its own from a pool, which keeps at most `limit`
programs alive (`--jobs`: a caller finding them all busy waits for one); at most `STARTING_AT_ONCE`
programs start at once (a start-up that waits its turn is not timed), so starting many programs on
few cores does not make their handshakes look hung.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import os
import shlex
import threading
from typing import Any
from urllib.parse import urlsplit

from conformance.jsonvalue import printable
from conformance.runtime.dropped import drop_error, received
from conformance.runtime.program import (
    DEFAULT_LIMITS,
    PROGRAM_FAULT,
    Limits,
    Program,
    RemoteError,
    RuntimeProcessError,
)
from conformance.runtime.protocol import CAPABILITIES, AgentRequest, Declaration, TurnRequest

PROTOCOL = 1
"""The protocol version this harness speaks."""

DEFAULT_TIMEOUT_S = 60.0
"""How long one call may take before the program is called hung (`--runtime-timeout`)."""

DEFAULT_START_TIMEOUT_S = 120.0
"""How long a program may take to start and answer the handshake (`--runtime-start-timeout`): an
interpreter loading its libraries on a busy machine takes far longer than one call."""


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


STARTING_AT_ONCE = max(1, _cpus())
"""Programs of one pool that may be starting (up to their handshake) at the same time."""


def _check_handshake(child: Program, data: Any) -> tuple[Declaration, frozenset[str]]:
    if not isinstance(data, dict):
        raise child.fault("answered the handshake with something that is not an object")
    if data.get("protocol") != PROTOCOL:
        raise child.fault(f"speaks protocol {data.get('protocol')!r}; this harness speaks {PROTOCOL}")
    caps = data.get("capabilities")
    if not isinstance(caps, list) or not caps or not all(isinstance(c, str) for c in caps):
        raise child.fault("declared no capabilities (a non-empty list of names)")
    unknown = sorted(set(caps) - set(CAPABILITIES))
    if unknown:
        raise child.fault(f"declared unknown capabilities {', '.join(unknown)} (known: {', '.join(CAPABILITIES)})")
    try:
        declaration = Declaration.from_json(data, default_name="runtime")
    except (TypeError, ValueError) as exc:
        raise child.fault(f"sent a handshake that does not read: {printable(str(exc))[:200]}") from None
    version = declaration.version
    shown = dataclasses.replace(
        declaration, name=_label(declaration.name), version=None if version is None else _label(version)
    )
    return shown, frozenset(caps)


HANDSHAKE_CHARS = 120
"""Characters of a handshake's name or version kept (they title the report and every summary line)."""


def _label(text: str) -> str:
    """A name or version as the harness shows it: printable, at most `HANDSHAKE_CHARS` characters
    and the full length stated."""
    if len(text) > HANDSHAKE_CHARS:
        return printable(text[:HANDSHAKE_CHARS]) + f"… [{len(text):,} characters]"
    return printable(text)


class ProcessPool:
    """Started programs of one command, for this process: an idle one is reused, a faulted one dropped."""

    def __init__(
        self,
        argv: list[str],
        timeout: float,
        start_timeout: float = DEFAULT_START_TIMEOUT_S,
        limit: int | None = None,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.argv, self.timeout, self.start_timeout = argv, timeout, start_timeout
        self.limits = limits
        self.limit = limit
        """At most this many programs alive at once (None: no limit); a caller finding every one busy
        waits for one to come back, unless it already holds one (a check needing two at once)."""
        self._pid = -1
        self._fresh_if_forked()
        self.started = 0
        self.peak = 0
        """The most programs alive at one time."""

    def _fresh_if_forked(self) -> None:
        if os.getpid() != self._pid:  # a forked worker: the parent's pipes are not ours to use
            self._idle: list[Program] = []
            self._all: list[Program] = []
            self._lock = threading.Condition()
            self._pid = os.getpid()
            self._starting = threading.BoundedSemaphore(STARTING_AT_ONCE)
            self._reserved = 0  # programs being started
            self._held = threading.local()

    def _alive(self) -> int:
        return len(self._all) + self._reserved

    def start(self) -> tuple[Program, Any]:
        """A fresh program and its handshake's answer, once fewer than `STARTING_AT_ONCE` are starting."""
        with self._lock:
            self._reserved += 1
            self.peak = max(self.peak, self._alive())
        try:
            with self._starting:
                child = Program(self.argv, self.timeout, self.limits)
                with self._lock:
                    self.started += 1
                try:
                    hello = child.call("handshake", {"protocol": PROTOCOL}, timeout=self.start_timeout)
                except RemoteError as exc:
                    raise child.fault(f"refused the handshake: {exc}") from None
            with self._lock:
                self._all.append(child)
        finally:
            with self._lock:
                self._reserved -= 1
                self._lock.notify_all()
        return child, hello

    def _take(self) -> Program | None:
        """An idle program, or None when a new one may start; waits while `limit` programs are busy."""
        with self._lock:
            while not self._idle and self.limit is not None and self._alive() >= self.limit:
                if getattr(self._held, "n", 0):  # this thread holds one already: waiting could never end
                    break
                self._lock.wait()
            return self._idle.pop() if self._idle else None

    @contextlib.contextmanager
    def child(self) -> Any:
        self._fresh_if_forked()
        child = self._take()
        if child is None:
            child, hello = self.start()
            try:
                _check_handshake(child, hello)
            except RuntimeProcessError:
                self._drop(child)
                raise
        self._held.n = getattr(self._held, "n", 0) + 1
        ok = False
        try:
            yield child
            ok = True
        except RemoteError:
            ok = True  # the program answered: it stays usable
            raise
        finally:
            self._held.n -= 1
            if ok and child.proc.poll() is None:
                self.give_back(child)
            else:
                self._drop(child)

    def _drop(self, child: Program) -> None:
        child.stop()
        with self._lock:
            if child in self._all:
                self._all.remove(child)
            self._lock.notify_all()

    def give_back(self, child: Program) -> None:
        """A program started with `start` becomes idle, for the next caller."""
        with self._lock:
            self._idle.append(child)
            self._lock.notify_all()

    def close(self) -> None:
        self._fresh_if_forked()
        with self._lock:
            children, self._idle, self._all = list(self._all), [], []
        for child in children:
            child.close()


def _fallbacks_served(stack: contextlib.ExitStack, request: TurnRequest) -> tuple[dict[str, Any], list[Any]]:
    """The turn's settings with each provider to fall back to served at a loopback port of its own
    (`runtime.protocol.FALLBACK_SETTING`), and those loopbacks (open until `stack` closes)."""
    from conformance.runtime.loopback import Loopback

    settings, others = dict(request.settings), []
    fallback = settings.get("fallback")
    if isinstance(fallback, list):
        moved = []
        for entry in fallback:
            if isinstance(entry, dict) and isinstance(entry.get("base_url"), str):
                others.append(stack.enter_context(Loopback(request.transport, entry["base_url"], None)))
                entry = {**entry, "base_url": others[-1].base_url}
            moved.append(entry)
        settings["fallback"] = moved
    return settings, others


class ProcessRuntime:
    """The runtime protocol answered by a program (`command`, split like a shell does) over JSON lines."""

    def __init__(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        start_timeout: float = DEFAULT_START_TIMEOUT_S,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        argv = shlex.split(command)
        if not argv:
            raise RuntimeProcessError("empty runtime command")
        self.command = command
        self.real_time = True
        """Waits pass in real time in the program: checks with waits are worth running concurrently."""
        self.pool = ProcessPool(argv, timeout, start_timeout, limits=limits)
        child, hello = self.pool.start()
        self.declaration, self.capabilities = _check_handshake(child, hello)
        self.pool.give_back(child)
        self.name = self.declaration.name
        self.version = self.declaration.version
        for cap, method in CAPABILITIES.items():  # capabilities_of reads the methods a runtime has
            if cap not in self.capabilities:
                setattr(self, method, None)

    def limit_programs(self, programs: int) -> None:
        """At most `programs` programs alive at once from now on (`--jobs`)."""
        self.pool.limit = max(1, programs)

    def call(self, method: str, params: dict[str, Any]) -> Any:
        with self.pool.child() as child:
            return child.call(method, params)

    def close(self) -> None:
        self.pool.close()

    # the capabilities ------------------------------------------------------------------------------

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        params = {"conversation": _with_model(conversation, provider), "provider": provider}
        return _obj(self.call("encode", params), "encode")

    def decode(
        self,
        provider: str,
        status: int,
        headers: dict[str, str],
        chunks: list[bytes],
        stream: bool,
        *,
        model: str | None = None,
        conversation: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        params = {
            "provider": provider,
            "model": model or _usual_model(provider),
            "conversation": conversation,  # the prompt the answer is to (null: a real recorded call)
            "status": status,
            "headers": dict(headers),
            "chunks": [base64.b64encode(c).decode("ascii") for c in received(chunks)],
            "stream": stream,
        }
        if drop_error(chunks) is not None:  # the connection dropped after these chunks (`runtime.dropped`)
            params["dropped"] = True
        return _obj(self.call("decode", params), "decode")

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        params = {"messages": messages, "provider": provider, "model": model, "options": options or {}}
        return _obj(self.call("repair", params), "repair")

    def load_transcript(self, path: str) -> dict[str, Any]:
        return _obj(self.call("transcripts", {"path": path}), "transcripts")

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        from conformance.runtime.loopback import Loopback, busy_seconds

        with contextlib.ExitStack() as stack:
            child = stack.enter_context(self.pool.child())
            busy = lambda: busy_seconds(child.proc.pid)  # noqa: E731
            loop = stack.enter_context(Loopback(request.transport, request.base_url, request.clock, busy))
            settings, others = _fallbacks_served(stack, request)
            params = {
                "provider": request.provider,
                "conversation": _with_model(request.conversation, request.provider),
                "base_url": loop.base_url,
                "keys": list(request.keys),
                "settings": settings,
            }
            answer = _obj(child.call("turn", params), "turn")
        for other in others:
            other.raise_transport_error()
        loop.raise_transport_error()
        loop.record_waits(_waited(answer.pop("waited", None)))
        return answer

    def agent_turn(self, request: AgentRequest) -> dict[str, Any]:
        from conformance.runtime.loopback import Loopback

        with self.pool.child() as child, Loopback(request.transport, request.base_url, None) as loop:
            ident = child._next + 1  # the id the `agent` call below gets
            request.cancel.add_callback(lambda: child.notify("cancel", {"id": ident}))
            parts = urlsplit(request.tool_url)
            params = {
                "provider": request.provider,
                "conversation": _with_model(request.conversation, request.provider),
                "base_url": loop.base_url,
                "keys": list(request.keys),
                "tool_url": loop.origin + parts.path,
                "settings": request.settings,
            }
            answer = _obj(child.call("agent", params), "agent")
        loop.raise_transport_error()
        return answer

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        if transport is None:
            return _obj(self.call("context", {"request": request}), "context")
        from conformance.capabilities import get_profile
        from conformance.runtime.loopback import Loopback

        profile = get_profile(str(request.get("provider")))
        with Loopback(transport, profile.base_url, None) as loop:
            answer = self.call("context", {"request": request, "base_url": loop.base_url})
        loop.raise_transport_error()
        return _obj(answer, "context")

    def store_session(self, backend: str, directory: str, options: dict[str, Any] | None = None) -> StoreHandle:
        return StoreHandle(self, backend, directory, options)


class StoreHandle:
    """A `store` session in the program: `open` gives a handle; `apply`, `tree`, `fsck`, `close` name it."""

    def __init__(self, runtime: ProcessRuntime, backend: str, directory: str, options: dict[str, Any] | None) -> None:
        self._pool = runtime.pool
        self._turns = threading.Lock()  # one call at a time on the program's pipe, from any thread
        self._ctx = self._pool.child()
        self._child: Program = self._ctx.__enter__()  # the session lives in one process until closed
        try:
            opened = self._call({"op": "open", "backend": backend, "directory": directory, "options": options})
        except BaseException:
            self._ctx.__exit__(None, None, None)
            raise
        self.handle = opened.get("handle") if isinstance(opened, dict) else None

    def _call(self, params: dict[str, Any]) -> Any:
        with self._turns:
            return self._child.call("store", params)

    def apply(self, op: dict[str, Any]) -> Any:
        return self._call({"op": "apply", "handle": self.handle, "operation": op})

    def tree(self) -> Any:
        return self._call({"op": "tree", "handle": self.handle})

    def fsck(self) -> Any:
        return self._call({"op": "fsck", "handle": self.handle})

    def close(self) -> None:
        try:
            self._call({"op": "close", "handle": self.handle})
        finally:
            self._ctx.__exit__(None, None, None)


def _with_model(conversation: dict[str, Any], provider: str) -> dict[str, Any]:
    """The conversation with the model a caller names: the scenario's, else the provider's usual one
    (the model its cassettes were recorded with), so a program needs no model table of its own."""
    if conversation.get("model"):
        return conversation
    return {**conversation, "model": _usual_model(provider)}


def _usual_model(provider: str) -> str:
    """The model the provider's cassettes were recorded with."""
    from conformance.capabilities import get_profile

    return get_profile(provider).default_model


def _waited(value: Any) -> list[float] | None:
    """A `turn` answer's optional `waited`: the seconds of each wait the program made, in order."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(w, int | float) and not isinstance(w, bool) and 0 <= w < float("inf") for w in value
    ):
        raise RuntimeProcessError("runtime program answered `turn` with a `waited` that is not a list of seconds")
    return [float(w) for w in value]


def _obj(value: Any, method: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RuntimeProcessError(f"runtime program answered `{method}` with {type(value).__name__}, not an object")
    return value


__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_START_TIMEOUT_S",
    "DEFAULT_TIMEOUT_S",
    "PROGRAM_FAULT",
    "PROTOCOL",
    "Limits",
    "ProcessRuntime",
    "RemoteError",
    "RuntimeProcessError",
]
