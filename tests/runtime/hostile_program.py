"""A runtime program that attacks the harness that runs it: a test fixture (standard library only, so it starts fast).

Run as `python hostile_program.py`; it answers the handshake (name and version from `NAME`, `VERSION`
when set, padded with `PAD` more characters; `PROVIDERS` more declared providers with long names), then, on its first call, does what `HOSTILE` (environment) says; `SIZE` is how many
bytes its hostile output holds (just above the limit the test gives the harness):

- `orphan`: starts a grandchild (`sleep 601`) that keeps stdout and stderr open, then exits;
- `orphan-alive`: starts such a grandchild at start-up and answers every call (`ok`);
- `detached`: like `orphan`, the grandchild in a session of its own (`setsid`);
- `stdout-flood`: prints bytes without a newline, forever;
- `stderr-flood`: prints bytes without a newline on stderr, forever;
- `idle-flood`: after the handshake, prints short lines while no call is made, forever;
- `big-line`: answers with one line of `SIZE` bytes;
- `deep`: answers with a result nested `SIZE` levels deep;
- `big-result`: answers with a result holding a string of `SIZE` characters;
- `no-read`: stops reading its input (and sleeps);
- `ok`: answers every call with `{}`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

MODE = os.environ.get("HOSTILE", "ok")
SIZE = int(os.environ.get("SIZE", "1000"))
PAD = int(os.environ.get("PAD", "0"))
out = sys.stdout.buffer
err = sys.stderr.buffer


def say(obj: object) -> None:
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()


def forever(stream: object, chunk: bytes) -> None:
    while True:
        stream.write(chunk)  # type: ignore[attr-defined]
        stream.flush()  # type: ignore[attr-defined]


def grandchild(detached: bool = False) -> None:
    argv = ["setsid", "sleep", "601"] if detached else ["sleep", "601"]
    subprocess.Popen(argv, stdin=subprocess.DEVNULL)  # stdout and stderr inherited: they stay open


def answer(ident: int) -> None:
    if MODE == "orphan":
        grandchild()
        err.write(b"leaving a grandchild behind\n")
        err.flush()
        os._exit(3)
    if MODE == "detached":
        grandchild(detached=True)
        time.sleep(1)  # the harness sees it while this program runs
        os._exit(3)
    if MODE == "stdout-flood":
        forever(out, b"x" * 65536)
    if MODE == "stderr-flood":
        forever(err, "\x1b[2J\u202e".encode() * 8192)
    if MODE == "big-line":
        say({"id": ident, "result": {"text": "a" * SIZE}})
        return
    if MODE == "deep":
        out.write(b'{"id": %d, "result": {"deep": ' % ident + b"[" * SIZE + b"]" * SIZE + b"}}\n")
        out.flush()
        return
    if MODE == "big-result":
        say({"id": ident, "result": {"model": "m" * SIZE, "messages": [{"role": "user", "content": "x" * SIZE}]}})
        return
    if MODE == "no-read":
        time.sleep(601)
    say({"id": ident, "result": {}})


def main() -> None:
    if MODE == "orphan-alive":
        grandchild()
    first = True
    for raw in sys.stdin.buffer:
        msg = json.loads(raw)
        if "id" not in msg:
            continue
        if msg["method"] == "handshake":
            hello = {
                "protocol": 1,
                "capabilities": ["decode", "encode"],
                "name": os.environ.get("NAME", "hostile") + "n" * PAD,
            }
            if "PROVIDERS" in os.environ:  # the providers it declares: openai and as many long names
                hello["providers"] = ["openai"] + [
                    f"provider-{i:08d}-" + "p" * 40 for i in range(int(os.environ["PROVIDERS"]))
                ]
            if "VERSION" in os.environ:
                hello["version"] = os.environ["VERSION"] * PAD
            say({"id": msg["id"], "result": hello})
            if MODE == "idle-flood":
                threading.Thread(target=forever, args=(out, b'{"id": 0}\n' * 4096), daemon=True).start()
            if MODE == "no-read":
                time.sleep(601)
            continue
        if msg["method"] == "shutdown":
            say({"id": msg["id"], "result": None})
            return
        if first or MODE not in ("orphan-alive", "ok"):
            first = False
            answer(msg["id"])
        else:
            say({"id": msg["id"], "result": {}})


if __name__ == "__main__":
    main()
