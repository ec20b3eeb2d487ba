"""One runtime program in a box: started in a session (and process group) of its own, read against
limits, and ended whole.

- **Ended whole.** `stop` kills the program's process group, and every descendant seen while it ran
  (Linux: `/proc`; this finds one that moved to a session of its own), then wakes the reader; it
  never waits on a pipe that something the program started still holds open. Programs not stopped
  when the harness exits (Ctrl-C included) are stopped then (`atexit`).
- **Reads that end.** One thread per program reads its stdout and stderr without blocking, until
  both end or `stop` wakes it; a call waits at most its timeout, and only `EXIT_GRACE_S` once the
  program has exited (its grandchild may keep the pipe open). A line to the program waits at most
  the call's timeout for the program to read it.
- **Limits** (`Limits`): a stdout line (one answer), the stdout bytes of one call, the stderr bytes of
  one call (stderr is kept as a tail of `STDERR_TAIL` lines of at most `STDERR_LINE_CHARS`
  characters), the nesting of a JSON answer. A breach stops the reading at once and fails the call
  with a one-line reason naming the limit; the bytes beyond a limit are never held.

Every fault is a `RuntimeProcessError`: one line, `runtime program …`, with the stderr tail, its
control and bidirectional characters escaped (`jsonvalue.printable`).
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import json
import os
import queue
import selectors
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from conformance.exceptions import ConformanceError, InputError
from conformance.fileio import size_text
from conformance.jsonvalue import MAX_DEPTH, depth, printable

STDERR_TAIL = 5
"""Lines of the program's stderr kept for a fault's reason."""
STDERR_LINE_CHARS = 1_000
"""Characters of one stderr line kept in the tail (the rest of a longer line is read and dropped)."""

MIB = 1 << 20


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one program may print; each breach ends it, the call a one-line fault naming the limit."""

    line_bytes: int = 16 * MIB
    """Longest stdout line (one answer): 16 MiB, eight times the largest answer the bundled rows ask
    for, while the harness holding a line this long, its text and its parse stays far below 300 MB."""
    call_bytes: int = 32 * MIB
    """Most stdout bytes during one call (counted from its request; lines printed between calls count
    for the next): an answer and some stray lines, not an endless stream of short lines."""
    call_lines: int = 1_000
    """Most stdout lines during one call: a call is answered with one; a flood of short lines costs
    far more to hold than their bytes (a million lines of 10 bytes: about 100 MB)."""
    stderr_bytes: int = 8 * MIB
    """Most stderr bytes during one call: a verbose log, not an endless one (only a tail is kept)."""
    depth: int = MAX_DEPTH
    """Deepest nesting of a JSON answer (the nesting every value the harness saves may have)."""


DEFAULT_LIMITS = Limits()
READ_CHUNK = 1 << 16
"""Bytes read from a pipe at a time."""
POLL_S = 0.25
"""How often a waiting call looks whether the program is still there."""
EXIT_GRACE_S = 0.5
"""How long the last words of a program that exited may take to arrive (something it started may hold its stdout)."""
NOTIFY_TIMEOUT_S = 5.0
"""How long a line that asks no answer (`cancel`) may wait for the program to read it."""


PROGRAM_FAULT = "runtime program"
"""Every fault's reason holds these words (the run's summary counts the rows they failed)."""


class RuntimeProcessError(InputError):
    """The runtime program broke the protocol (crash, hang, non-JSON, wrong id, …): one line with its stderr tail."""


class RemoteError(ConformanceError):
    """The runtime program answered a call with an `error` (it raised): its type, message and traceback."""

    def __init__(self, type_: str, message: str, traceback: str | None) -> None:
        self.remote_type = type_
        self.remote_traceback = traceback
        super().__init__(f"{type_}: {message}" if type_ else message)


class Program:
    """One started program, in a session (and process group) of its own: one reader thread takes its
    stdout (lines into a queue) and stderr (a bounded tail) against `limits`, and ends when asked
    (`stop`), whoever else holds the pipes open."""

    def __init__(self, argv: list[str], timeout: float, limits: Limits = DEFAULT_LIMITS) -> None:
        self.timeout, self.limits = timeout, limits
        self.stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        self.lines: queue.Queue[bytearray | _Breach | None] = queue.Queue()
        self._next = 0
        self._write = threading.Lock()
        self._out, self._err_line = bytearray(), bytearray()
        self._out_bytes = self._err_bytes = self._out_lines = 0  # since the call began
        self._breached = False
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,  # its own process group: everything it starts ends with it
            )
        except OSError as exc:
            raise RuntimeProcessError(f"cannot start {shlex.join(argv)}: {exc.strerror or exc}") from None
        self.pgid = self.proc.pid
        """Its process group (and session): the program's pid."""
        self.owner = os.getpid()
        self._known: set[int] = set()
        with _LIVE_LOCK:
            _LIVE.add(self)
        self._wake_r, self._wake_w = os.pipe()
        assert self.proc.stdin is not None
        os.set_blocking(self.proc.stdin.fileno(), False)
        self._reader = threading.Thread(target=self._read, daemon=True, name=f"runtime-program-{self.pgid}")
        self._reader.start()

    # reading -----------------------------------------------------------------------------------

    def _read(self) -> None:
        """Read stdout and stderr as they come, until both end or `stop` wakes this thread; the
        pipes are closed here, by their one reader."""
        out, err = self.proc.stdout, self.proc.stderr
        assert out is not None and err is not None
        sel = selectors.DefaultSelector()
        try:
            for stream in (out, err):
                os.set_blocking(stream.fileno(), False)
                sel.register(stream.fileno(), selectors.EVENT_READ, stream is out)
            sel.register(self._wake_r, selectors.EVENT_READ, None)
            streams = 2
            while streams:
                for key, _ in sel.select():
                    if key.data is None:  # woken by `stop`
                        return
                    try:
                        data = os.read(key.fd, READ_CHUNK)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data or not (self._stdout(data) if key.data else self._stderr(data)):
                        sel.unregister(key.fd)
                        streams -= 1
        finally:
            sel.close()
            self.lines.put(None)  # end of stdout
            for stream in (out, err):
                with contextlib.suppress(OSError):
                    stream.close()
            with contextlib.suppress(OSError):
                os.close(self._wake_r)

    def _breach(self, what: str) -> bool:
        """Stop reading: the program broke a limit; the call in progress (or the next) faults with why."""
        if not self._breached:
            self._breached = True
            self.lines.put(_Breach(what))
        return False

    def _stdout(self, data: bytes) -> bool:
        """Take stdout bytes: each complete line into the queue; False once a limit is broken."""
        limits = self.limits
        self._out_bytes += len(data)
        start = 0
        too_long = f"printed a stdout line longer than {size_text(limits.line_bytes)} (the line limit)"
        while (end := data.find(b"\n", start)) >= 0:
            if len(self._out) + end - start > limits.line_bytes:
                return self._breach(too_long)
            self._out += data[start:end]
            line, self._out = self._out, bytearray()
            self.lines.put(line)
            self._out_lines += 1
            if self._out_lines > limits.call_lines:
                return self._breach(
                    f"printed more than {limits.call_lines:,} stdout lines during one call (the lines limit)"
                )
            start = end + 1
        if len(self._out) + len(data) - start > limits.line_bytes:
            return self._breach(too_long)
        self._out += data[start:]
        if self._out_bytes > limits.call_bytes:
            return self._breach(
                f"printed more than {size_text(limits.call_bytes)} on stdout during one call (the call limit)"
            )
        return True

    def _stderr(self, data: bytes) -> bool:
        """Take stderr bytes into the tail (each line cut to `STDERR_LINE_CHARS`); False past the stderr limit."""
        self._err_bytes += len(data)
        lines = data.split(b"\n")
        for piece in lines[:-1]:
            self._err_line += piece[: max(0, STDERR_LINE_CHARS * 4 - len(self._err_line))]
            self.stderr.append(_tail_line(self._err_line))
            self._err_line = bytearray()
        self._err_line += lines[-1][: max(0, STDERR_LINE_CHARS * 4 - len(self._err_line))]
        if self._err_bytes > self.limits.stderr_bytes:
            if self._err_line:
                self.stderr.append(_tail_line(self._err_line))
                self._err_line = bytearray()
            return self._breach(
                f"printed more than {size_text(self.limits.stderr_bytes)} on stderr during one call (the stderr limit)"
            )
        return True

    def _answer(self, method: str, timeout: float) -> bytearray:
        """The next stdout line, or a fault: a limit broken, the program gone, or no line within `timeout`."""
        deadline = time.monotonic() + timeout
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise self.fault(f"did not answer `{method}` within {timeout:g} s")
            try:
                answer = self.lines.get(timeout=min(POLL_S, deadline - now))
            except queue.Empty:
                self._known |= set(_descendants(self.proc.pid))  # seen while alive: ended at `stop`
                # a program that has exited answers nothing more, though something it started keeps
                # the pipe open: it is given `EXIT_GRACE_S` for what it printed last to arrive
                if self.proc.poll() is not None:
                    exited_at = exited_at or now
                    if now - exited_at >= EXIT_GRACE_S:
                        raise self.fault(f"exited during `{method}` (exit code {self.proc.returncode})") from None
                continue
            if answer is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=1)
                raise self.fault(f"exited during `{method}` (exit code {self.proc.poll()})")
            if isinstance(answer, _Breach):
                raise self.fault(f"{answer.what} during `{method}`")
            return answer

    def fault(self, reason: str) -> RuntimeProcessError:
        self.stop()
        tail = " | ".join(line.strip() for line in list(self.stderr) if line.strip())
        text = f"runtime program {reason}" + (f"; stderr: {tail[-400:]}" if tail else "")
        return RuntimeProcessError(printable(text))

    def call(self, method: str, params: dict[str, Any] | None, timeout: float | None = None) -> Any:
        self._next += 1
        ident = self._next
        wait = timeout or self.timeout
        line = json.dumps({"id": ident, "method": method, "params": params or {}}, ensure_ascii=False)
        self._out_bytes = self._err_bytes = self._out_lines = 0
        try:
            self._send(line, wait)
        except TimeoutError:
            raise self.fault(f"did not read `{method}` within {wait:g} s") from None
        except (OSError, ValueError):
            raise self.fault(f"exited before `{method}` (exit code {self.proc.poll()})") from None
        raw = self._answer(method, wait)
        text = raw.decode("utf-8", "replace")
        del raw
        try:
            data = json.loads(text)
        except RecursionError:
            data = _TOO_DEEP
        except ValueError:
            raise self.fault(f"printed a line that is not JSON during `{method}`: {text[:80]!r}") from None
        limit = self.limits.depth
        if data is _TOO_DEEP or (text.count("[") + text.count("{") > limit and depth(data, stop=limit + 1) > limit):
            raise self.fault(f"answered `{method}` with JSON nested deeper than {limit} levels (the depth limit)")
        del text
        if not isinstance(data, dict) or data.get("id") != ident:
            got = data.get("id") if isinstance(data, dict) else type(data).__name__
            raise self.fault(f"answered `{method}` (id {ident}) with id {printable(repr(got))[:80]}")
        if "error" in data:
            err = data["error"] if isinstance(data["error"], dict) else {"message": str(data["error"])}
            raise RemoteError(str(err.get("type") or ""), str(err.get("message") or ""), err.get("traceback"))
        if "result" not in data:
            raise self.fault(f"answered `{method}` with neither result nor error")
        return data["result"]

    def _send(self, line: str, timeout: float) -> None:
        """Write one line, waiting at most `timeout` for the program to read it (`TimeoutError`)."""
        data = memoryview((line + "\n").encode("utf-8", "replace"))
        deadline = time.monotonic() + timeout
        with self._write:
            stdin = self.proc.stdin
            assert stdin is not None
            fd = stdin.fileno()
            with contextlib.suppress(BlockingIOError):  # most lines fit the pipe at once
                data = data[os.write(fd, data) :]
            if not data:
                return
            with selectors.DefaultSelector() as ready:  # not `select.select`: any descriptor number
                ready.register(fd, selectors.EVENT_WRITE)
                while data:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError
                    if ready.select(min(left, POLL_S)):
                        with contextlib.suppress(BlockingIOError):
                            data = data[os.write(fd, data) :]

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """A line that asks no answer (`cancel` of the call in progress), from any thread; a program
        that has gone is found by the call it is answering."""
        with contextlib.suppress(OSError, ValueError, TimeoutError):
            self._send(json.dumps({"method": method, "params": params}, ensure_ascii=False), NOTIFY_TIMEOUT_S)

    # ending ------------------------------------------------------------------------------------

    def descendants_left(self) -> list[int]:
        """Processes this program started that are still alive (Linux: found through `/proc`, including
        those that left its process group while it ran; elsewhere: none known)."""
        self._known |= set(_descendants(self.proc.pid))
        return [pid for pid in sorted(self._known) if _alive(pid)]

    def stop(self) -> None:
        """End the program and everything it started (its process group, and any descendant that left
        it), and the reader; never waits on a pipe something else still holds."""
        with _LIVE_LOCK:
            if self not in _LIVE:
                return
            _LIVE.discard(self)
        self._known |= set(_descendants(self.proc.pid))
        with contextlib.suppress(OSError):
            os.killpg(self.pgid, signal.SIGKILL)
        for pid in self._known:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=5)
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        self._reader.join(timeout=5)
        with contextlib.suppress(OSError):
            os.close(self._wake_w)
        with self._write, contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()

    def close(self) -> None:
        """`shutdown`, then close stdin and wait a moment; end the group if anything lingers."""
        if self.proc.poll() is None and self in _LIVE:
            with contextlib.suppress(ConformanceError):
                self.call("shutdown", None, timeout=2)
            with self._write, contextlib.suppress(OSError):
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=2)
        self.stop()


_LIVE: set[Program] = set()
"""Programs started by this process and not yet stopped: ended at exit, whatever ends the harness."""
_LIVE_LOCK = threading.Lock()


@atexit.register
def _stop_all() -> None:
    for child in list(_LIVE):
        if child.owner == os.getpid():  # a forked worker leaves its parent's programs alone
            with contextlib.suppress(Exception):
                child.stop()


@dataclasses.dataclass(frozen=True)
class _Breach:
    """A limit the program broke (in the queue of its stdout lines, in place of a line)."""

    what: str


_TOO_DEEP = object()


def _tail_line(raw: bytearray) -> str:
    text = raw.decode("utf-8", "replace")
    return text if len(text) <= STDERR_LINE_CHARS else text[:STDERR_LINE_CHARS] + "…"


PROC = Path("/proc")


def _descendants(pid: int) -> list[int]:
    """The processes `pid` started, and theirs (Linux: `/proc/<pid>/task/*/children`; elsewhere none)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        proc = todo.pop()
        with contextlib.suppress(OSError):
            for task in (PROC / str(proc) / "task").iterdir():
                with contextlib.suppress(OSError, ValueError):
                    kids = [int(c) for c in task.joinpath("children").read_text().split()]
                    found += kids
                    todo += kids
    return found


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, ended and not yet reaped, does not)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return not PROC.is_dir()
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


__all__ = [
    "DEFAULT_LIMITS",
    "PROGRAM_FAULT",
    "STDERR_TAIL",
    "Limits",
    "Program",
    "RemoteError",
    "RuntimeProcessError",
    "size_text",
]
