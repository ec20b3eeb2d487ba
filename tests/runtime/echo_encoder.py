"""A runtime program (protocol v1) whose `encode` and `decode` answer with the params they were given."""

from __future__ import annotations

import json
import sys

for line in sys.stdin:
    call = json.loads(line)
    if call["method"] == "handshake":
        result: object = {"protocol": 1, "name": "echo", "version": "0", "capabilities": ["encode", "decode"]}
    elif call["method"] in ("encode", "decode"):
        result = call["params"]
    else:
        result = None
    sys.stdout.write(json.dumps({"id": call["id"], "result": result}) + "\n")
    sys.stdout.flush()
    if call["method"] == "shutdown":
        break
