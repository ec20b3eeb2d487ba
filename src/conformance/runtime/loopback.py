"""A loopback HTTP endpoint in front of a check's transport, for a runtime in another process.

The program under test sends real HTTP to `base_url` (127.0.0.1, a port of its own per call, so it
is scoped to the one scenario being checked); each request is handed to the check's transport with
the provider's own origin and path, exactly as an in-process runtime would have sent it, and the
transport's answer is written back. The time between an answer and the next request is a gap;
after the call, `record_waits` puts the program's waits on the check's clock (`sleep_sync`), so
the retry check judges waits that really passed:

- a program that says which waits it made (`waited`, seconds in order) gets them recorded when
  each fits in a gap, in order (it really waited at least that long); a claim that does not fit
  is set aside and the gaps are judged as below;
- otherwise a gap is a wait when it is at least `MIN_WAIT_S` once the program's own busy time is
  taken off: on a loaded machine its work between two requests (re-encoding a long conversation)
  can take a second without being a wait. Where the system says how long the program ran and
  waited for a CPU (Linux: `/proc/<pid>/task/*/schedstat`, the program and its children), that
  is the busy time; the run queue time counted is at most `RUN_DELAY_PER_CPU` times the time
  run (a sleeping task's time can be booked as run queue time, seen on Linux 6.18: a 2 s sleep
  booked whole; a program that ran little cannot have waited long for a CPU). The busy time is its
  busiest task's (its other threads — a garbage collector, an I/O pool — run beside its sleep, so
  their time summed could make a 30 s sleep read as 29.96 s). The wait recorded is the gap less
  the time that task ran;
- where the system does not say (no `/proc`: macOS, Windows; `PROC` moved in the tests), the busy
  time is unknown and taken as none: a gap of at least `MIN_WAIT_S` is a wait, whole. On an idle
  machine that is what the busy rule finds too; on a loaded one, work can pass for a wait, so a
  program run there says which waits it made (`waited`), which are then all that is believed.

An
exception from the transport (a request no recorded interaction matches) is answered with status
599 and raised again after the call (`raise_transport_error`), so the row reads as it would in
process. A fault the cassette replays (`replay.faults`) is acted out on the connection instead: an
answer whose connection drops goes out chunked and the connection closes before the terminating
chunk; a reset resets the connection (TCP RST) before any byte, and so does a timeout (the
program's own read timeout cannot be waited out on the check's clock).
"""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import httpx

from conformance.fileio import size_text
from conformance.jsonvalue import printable

FIT_SLACK_S = 0.05
"""A wait the program says it made fits a gap this much shorter (clock reading granularity)."""

MIN_WAIT_S = 0.3
"""A gap between an answer and the next request shorter than this is the program's own work, not a wait."""


RUN_DELAY_PER_CPU = 4.0
"""Run queue time counted as the program's work per second it ran (a machine shared five ways)."""


PROC = Path("/proc")
"""Where the system tells each process's CPU time (Linux); elsewhere absent, and busy time unknown."""


class Busy(NamedTuple):
    """A reading of a program's CPU time (`busy_seconds`)."""

    ran: float
    """Seconds its tasks (threads, of it and its descendants) have run on a CPU, summed."""
    waited: float
    """Seconds they have waited to run, summed."""
    tasks: tuple[tuple[str, float, float], ...] = ()
    """Each task's seconds run and waited to run, by `pid/tid`."""


def busy_seconds(pid: int) -> Busy | None:
    """Seconds the program `pid` and its descendants have run, and waited to run, on a CPU (None: unknown here)."""
    ran_s, waited_s, seen, todo = 0.0, 0.0, set(), [pid]
    tasks: list[tuple[str, float, float]] = []
    while todo:
        proc = todo.pop()
        if proc in seen:
            continue
        seen.add(proc)
        try:
            entries = list((PROC / str(proc) / "task").iterdir())
        except OSError:
            if proc == pid:
                return None
            continue
        for task in entries:
            with contextlib.suppress(OSError, ValueError, IndexError):
                ran, waited = task.joinpath("schedstat").read_text().split()[:2]
                ran_s, waited_s = ran_s + int(ran) / 1e9, waited_s + int(waited) / 1e9
                tasks.append((f"{proc}/{task.name}", int(ran) / 1e9, int(waited) / 1e9))
            with contextlib.suppress(OSError, ValueError):
                todo.extend(int(c) for c in task.joinpath("children").read_text().split())
    return Busy(ran_s, waited_s, tuple(tasks))


def _busiest(before: Busy, after: Busy) -> tuple[float, float]:
    """(seconds run, seconds waited to run) between two readings by the task that ran most: the
    program's own thread of work, which its sleep holds up; its other threads (a runtime's garbage
    collector, an I/O pool) run beside the sleep. Without task readings, all tasks summed."""
    if not after.tasks:
        return after.ran - before.ran, after.waited - before.waited
    earlier = {task: (ran, waited) for task, ran, waited in before.tasks}
    deltas = [
        (ran - earlier.get(task, (0.0, 0.0))[0], waited - earlier.get(task, (0.0, 0.0))[1])
        for task, ran, waited in after.tasks
    ]
    return max(deltas, default=(0.0, 0.0))


def gap_wait(gap: float, before: Busy | None, after: Busy | None) -> float | None:
    """The wait a gap between an answer and the next request holds (None: the program's own work),
    given the program's busy time read at both ends (`busy_seconds`; None: unknown, taken as none)."""
    if before is None or after is None:
        return gap if gap >= MIN_WAIT_S else None
    ran, waited = _busiest(before, after)
    worked = ran + min(waited, RUN_DELAY_PER_CPU * ran)
    return gap - ran if gap - worked >= MIN_WAIT_S else None


def fit_waits(said: list[float], gaps: list[float]) -> list[float] | None:
    """`said` when each wait fits a later gap than the one before (in order), else None."""
    k = 0
    for wait in said:
        while k < len(gaps) and gaps[k] < wait - FIT_SLACK_S:
            k += 1
        if k == len(gaps):
            return None
        k += 1
    return list(said)


HELD = "conformance.held"
"""A response extension: an answer written in two parts (`head`, then `tail` after `pause_s` unless the
client closes the connection first; `after_head()` runs between them, `closed()` or `done()` after)."""


def _wait_closed(sock: Any, seconds: float) -> bool:
    """Whether the client closes the connection within `seconds` (it has nothing more to send)."""
    import selectors
    import socket

    deadline = time.monotonic() + seconds
    with selectors.DefaultSelector() as ready:  # not `select.select`: any descriptor number
        ready.register(sock, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if ready.select(left):
                try:
                    if not sock.recv(1, socket.MSG_PEEK):
                        return True
                except OSError:
                    return True
                time.sleep(min(0.01, max(left, 0.0)))  # bytes of another request: not a close
    return False


_HOP = frozenset({"content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive"})


MAX_BODY_BYTES = 16 << 20
"""Largest request body the loopback reads (a larger one is answered 413 unread): eight times the
largest request a bundled row makes, while the body, its copy for the transport and its parse stay
far below 300 MB. Headers are bounded by the standard library's server: at most 100 header lines
of at most 64 KiB each (431), a request line of at most 64 KiB (414)."""

LOG = logging.getLogger("conformance.loopback")
"""One warning line per request the loopback refuses (a malformed or oversized request)."""

STOP_POLL_S = 0.02
"""How often a loopback server (this one, the adapters' `serve_response`) looks whether it is asked to
stop: leaving the `with` block waits at most this long (the standard library's half second, paid by
every out-of-process call and every served decode, was most of a short call's time)."""

_LENGTH = re.compile(r"[0-9]{1,19}")


def body_length(value: str | None, limit: int) -> tuple[int, int, str]:
    """The body length a `Content-Length` header value gives, or the status and the reason to refuse
    it: (length, 0, "") when it reads; (0, 400, why) when it is not one decimal number (`abc`, `-5`,
    `1e3`, `0x10`, `5, 6`); (0, 413, why) when it is over `limit` bytes."""
    if value is None:
        return 0, 0, ""
    text = value.strip()
    if not _LENGTH.fullmatch(text):
        return 0, 400, f"a Content-Length that is not a number of bytes: {printable(text[:40])!r}"
    if int(text) > limit:
        return 0, 413, f"a body of {int(text):,} bytes, over the limit of {size_text(limit)}"
    return int(text), 0, ""


def _read(response: httpx.Response) -> tuple[bytes, bool]:
    """A response's body as far as it arrived, and whether its connection dropped mid-body."""
    parts: list[bytes] = []
    try:
        parts.extend(response.iter_bytes())
    except httpx.RemoteProtocolError:
        return b"".join(parts), True
    return b"".join(parts), False


def _reset(handler: BaseHTTPRequestHandler) -> None:
    """Reset the connection (TCP RST: linger 0, then close) before any byte of an answer."""
    handler.close_connection = True
    with contextlib.suppress(OSError):
        handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        handler.connection.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client closing its kept-alive connection is no error; anything else is one log line."""
        exc = sys.exc_info()[1]
        if not isinstance(exc, ConnectionError):
            LOG.warning("loopback: a request from %s failed: %s", client_address[0], printable(f"{exc!r}"[:200]))


class Loopback:
    """Serve `transport` at a fresh loopback port while the `with` block runs."""

    def __init__(
        self,
        transport: Any,
        provider_base_url: str,
        clock: Any,
        busy: Callable[[], Busy | None] | None = None,
    ) -> None:
        parts = urlsplit(provider_base_url)
        self._origin = f"{parts.scheme}://{parts.netloc}"
        self._path = parts.path.rstrip("/")
        self._transport, self._clock = transport, clock
        self._lock = threading.Lock()
        self._last: float | None = None
        self._busy = busy or (lambda: None)
        self._busy_last: Busy | None = None
        self.gaps: list[tuple[float, float | None]] = []
        """Each gap between an answer and the next request, with the wait it holds by the busy rule (or None)."""
        self.error: BaseException | None = None
        self.max_body = MAX_BODY_BYTES
        """Largest request body read; a larger one is answered 413."""
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            arrived = 0.0

            def parse_request(self) -> bool:
                self.arrived = time.monotonic()  # as the request line is in: reading the rest waits on this process
                return super().parse_request()

            def _any(self) -> None:
                owner._serve(self, self.arrived)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _any

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": STOP_POLL_S}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """The provider's base URL, moved to this endpoint (same path: `…/v1`, `/v1beta`, …)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self._path}"

    @property
    def origin(self) -> str:
        """This endpoint's origin (`http://127.0.0.1:PORT`): other paths than the provider's reach the transport too."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Loopback:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def record_waits(self, said: list[float] | None = None) -> None:
        """Put the program's waits on the check's clock: those it `said` it made if they fit the gaps,
        else the gaps that hold a wait by the busy rule."""
        if self._clock is None:
            return
        waits = fit_waits(said, [g for g, _ in self.gaps]) if said is not None else None
        for wait in waits if waits is not None else [w for _, w in self.gaps if w is not None]:
            self._clock.sleep_sync(wait)

    def raise_transport_error(self) -> None:
        if self.error is not None:
            raise self.error

    def _refuse(self, handler: BaseHTTPRequestHandler, status: int, why: str) -> None:
        """Answer `status` with `why` (one line, also logged) and close the connection: what follows
        on it cannot be framed."""
        LOG.warning("loopback: %d for %s %s: %s", status, handler.command, printable(handler.path[:200]), why)
        content = why.encode()
        handler.send_response(status)
        handler.send_header("content-type", "text/plain; charset=utf-8")
        handler.send_header("content-length", str(len(content)))
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.wfile.write(content)
        handler.close_connection = True

    def _serve(self, handler: BaseHTTPRequestHandler, arrived: float) -> None:
        length, status, why = body_length(handler.headers.get("content-length"), self.max_body)
        if status:
            self._refuse(handler, status, why)
            return
        busy = self._busy()
        body = handler.rfile.read(length) if length else b""
        with self._lock:
            if self._last is not None:
                gap = arrived - self._last
                self.gaps.append((gap, gap_wait(gap, self._busy_last, busy)))
            headers = [(k, v) for k, v in handler.headers.items() if k.lower() not in ("host", "content-length")]
            request = httpx.Request(handler.command, self._origin + handler.path, headers=headers, content=body)
            held = None
            dropped = False
            try:
                response = self._transport.handle_request(request)
                held = response.extensions.get(HELD)
                status, out_headers = response.status_code, list(response.headers.items())
                content, dropped = (held.head + held.tail, False) if held is not None else _read(response)
            except (httpx.ReadError, httpx.ReadTimeout):  # no answer (`replay.faults`): acted out below
                status, out_headers, content, dropped = 0, [], b"", False
            except Exception as exc:  # the check reads it after the call, as in process
                self.error = self.error or exc
                status, out_headers, content = 599, [], f"{type(exc).__name__}: {exc}".encode()
            # stamped before the answer is written: the program cannot start on it earlier, so the
            # gap to the next request holds all its work and waits, whatever this thread's delays
            self._last, self._busy_last = time.monotonic(), self._busy()
        if status == 0:  # no answer: the connection is reset (a timeout is read as one here)
            _reset(handler)
            return
        handler.send_response(status)
        for key, value in out_headers:
            if key.lower() not in _HOP:
                handler.send_header(key, value)
        if dropped:  # chunked, then closed before the terminating chunk: the program's read fails mid-body
            handler.send_header("transfer-encoding", "chunked")
            handler.end_headers()
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(content), content) if content else b"")
            handler.wfile.flush()
            handler.close_connection = True
            return
        handler.send_header("content-length", str(len(content)))
        handler.end_headers()
        if held is None:
            handler.wfile.write(content)
            handler.wfile.flush()
            return
        try:
            handler.wfile.write(held.head)
            handler.wfile.flush()
            held.after_head()
            if _wait_closed(handler.connection, held.pause_s):
                held.closed()
                handler.close_connection = True
                return
            held.done()
            handler.wfile.write(held.tail)
            handler.wfile.flush()
        except OSError:
            held.closed()
            handler.close_connection = True


__all__ = [
    "FIT_SLACK_S",
    "HELD",
    "MAX_BODY_BYTES",
    "MIN_WAIT_S",
    "PROC",
    "RUN_DELAY_PER_CPU",
    "Busy",
    "Loopback",
    "body_length",
    "busy_seconds",
    "fit_waits",
    "gap_wait",
]
