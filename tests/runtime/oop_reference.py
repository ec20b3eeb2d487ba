"""The reference runtime behind the out-of-process protocol (JSON lines on stdin/stdout): a test fixture.

Run as `python oop_reference.py`; it must earn exactly the in-process reference's verdicts. This file
speaks the protocol and makes the faults; the calls are answered by `oop_methods.py` (requests of
`turn` and `context` go to the loopback base URL the harness hands over; waits are real).
`FAULT` (environment) makes it misbehave: `ignore-cancel` reads the `cancel` lines of `agent` and
does nothing with them; for the protocol-fault tests, `crash-at-start`,
`unknown-capability` and `slow-start` (`SLOW_START_S` seconds, 3 unless set) at start-up; `crash`, `exit`, `hang`, `non-json`, `wrong-id` on
every third call (every `FAULT_EVERY`th); `exit-then-X` exits on the third call and then, from the next start on (a file
at `FAULT_MARK` remembers), behaves as `X`. `SILENT_WAITS` keeps its waits to itself (no `waited` in a
`turn` answer). `LIVE_DIR` makes it count the programs alive (`count_live`)."""

from __future__ import annotations

import atexit
import functools
import json
import os
import queue
import sys
import threading
import time
import traceback
from types import ModuleType
from typing import Any

FAULT = os.environ.get("FAULT", "")
EVERY = int(os.environ.get("FAULT_EVERY", "3"))
if FAULT.startswith("exit-then-"):
    FAULT = FAULT.removeprefix("exit-then-") if os.path.exists(os.environ["FAULT_MARK"]) else "exit-then"
CAPABILITIES = ("agent", "context", "decode", "encode", "repair", "store", "transcripts", "turn")
"""The methods it offers (`oop_methods.METHODS`), declared at the handshake."""
NO_CALL_FAULTS = ("crash-at-start", "unknown-capability", "slow-start")
"""Faults of a program no call reaches (it exits, is refused at its handshake, or is only timed to
its handshake): it does not load the reference runtime, so it starts at the cost of the standard
library; every other program loads it before its handshake, within the start-up timeout."""


@functools.cache
def load() -> ModuleType:
    """The reference runtime behind the calls (`oop_methods`), loaded once."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import oop_methods

    assert tuple(sorted(oop_methods.METHODS)) == CAPABILITIES
    return oop_methods


def handshake() -> dict[str, Any]:
    caps = list(CAPABILITIES)
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
            if FAULT != "ignore-cancel":  # a cancel only follows a call, which loaded it
                load().cancel(msg["params"]["id"])
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
    if FAULT not in NO_CALL_FAULTS:
        load()
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
            answer: dict[str, Any] = {"id": ident, "result": load().dispatch(method, ident, msg.get("params") or {})}
        except Exception as exc:
            answer = {
                "id": ident,
                "error": {"type": type(exc).__name__, "message": str(exc), "traceback": traceback.format_exc()},
            }
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
