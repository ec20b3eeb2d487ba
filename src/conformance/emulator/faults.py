"""Fault injection for the emulator: what to break, per request (header) or per server (option).

A fault spec is `kind[;key=value…]`:

- `429;retry-after=30` — a rate-limit error in the provider's envelope, with `Retry-After`;
- `529`, `503`, `500` — overloaded / unavailable / server errors in the provider's envelope;
- `cut=<bytes>` — the connection closes after that many bytes of the body, with no terminating
  chunk (a dropped connection: the client's read raises mid-body);
- `end=<bytes>` — the body ends cleanly after that many bytes (the terminating chunk comes; a
  stream stops without its terminal event);
- `reset` — the connection is reset (TCP RST) once the request is read, before any byte of the answer;
- `timeout` — no byte of the answer comes: the connection is held open until the client gives up;
- `error-event` — an error arrives inside the 200 stream, after the first event, in the dialect's
  framing;
- `rechunk=<seed>` — the body is sent in chunks split at random (seeded) boundaries.

`times=N` limits a server-level fault to the first N matching requests. Without a fault of its
own, an interaction ends as its cassette's `meta.fault` says (`replay.faults`).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from conformance.exceptions import InputError
from conformance.replay.faults import FaultKind

_ERRORS: dict[str, dict[int, tuple[str, str]]] = {
    # dialect → status → (content-type, body)
    "openai_chat": {
        429: (
            "application/json",
            json.dumps(
                {
                    "error": {
                        "message": "Rate limit reached. Please try again later.",
                        "type": "requests",
                        "param": None,
                        "code": "rate_limit_exceeded",
                    }
                }
            ),
        ),
        500: (
            "application/json",
            json.dumps(
                {
                    "error": {
                        "message": "The server had an error while processing your request.",
                        "type": "server_error",
                        "param": None,
                        "code": None,
                    }
                }
            ),
        ),
        503: (
            "application/json",
            json.dumps(
                {
                    "error": {
                        "message": "The engine is currently overloaded, please try again later.",
                        "type": "server_error",
                        "param": None,
                        "code": None,
                    }
                }
            ),
        ),
        529: (
            "application/json",
            json.dumps({"error": {"message": "Overloaded", "type": "server_error", "param": None, "code": None}}),
        ),
    },
    "anthropic": {
        429: (
            "application/json",
            json.dumps(
                {
                    "type": "error",
                    "error": {
                        "type": "rate_limit_error",
                        "message": "Number of requests has exceeded your rate limit.",
                    },
                }
            ),
        ),
        500: (
            "application/json",
            json.dumps({"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}),
        ),
        503: (
            "application/json",
            json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
        529: (
            "application/json",
            json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    },
    "gemini": {
        429: (
            "application/json",
            json.dumps(
                {
                    "error": {
                        "code": 429,
                        "message": "Resource has been exhausted (e.g. check quota).",
                        "status": "RESOURCE_EXHAUSTED",
                    }
                }
            ),
        ),
        500: (
            "application/json",
            json.dumps({"error": {"code": 500, "message": "An internal error has occurred.", "status": "INTERNAL"}}),
        ),
        503: (
            "application/json",
            json.dumps(
                {
                    "error": {
                        "code": 503,
                        "message": "The model is overloaded. Please try again later.",
                        "status": "UNAVAILABLE",
                    }
                }
            ),
        ),
        529: (
            "application/json",
            json.dumps(
                {
                    "error": {
                        "code": 503,
                        "message": "The model is overloaded. Please try again later.",
                        "status": "UNAVAILABLE",
                    }
                }
            ),
        ),
    },
    "ollama": {
        429: ("application/json", json.dumps({"error": "too many requests"})),
        500: ("application/json", json.dumps({"error": "llama runner process has terminated"})),
        503: (
            "application/json",
            json.dumps({"error": "server busy, please try again.  maximum pending requests exceeded"}),
        ),
        529: (
            "application/json",
            json.dumps({"error": "server busy, please try again.  maximum pending requests exceeded"}),
        ),
    },
}

_STREAM_ERRORS: dict[str, bytes] = {
    "openai_chat": (
        b'data: {"error":{"message":"The server had an error while processing your request.",'
        b'"type":"server_error","code":null}}\n\n'
    ),
    "anthropic": b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    "gemini": (
        b'data: {"error":{"code":503,"message":"The model is overloaded. Please try again later.",'
        b'"status":"UNAVAILABLE"}}\n\n'
    ),
    "ollama": b'{"error":"an error was encountered while running the model"}\n',
}


_ERRORS["openai_responses"] = _ERRORS["openai_chat"]  # the Responses API answers HTTP errors alike
_STREAM_ERRORS["openai_responses"] = (
    b'event: error\ndata: {"type":"error","code":"server_error",'
    b'"message":"The server had an error while processing your request.","param":null}\n\n'
)

_RECORD_ENDS: dict[str, bytes] = {"ollama": b"\n"}
"""What ends one streamed record: a blank line for SSE, a newline for NDJSON."""


_ENDINGS: dict[str, FaultKind] = {"cut": "drop", "end": "clean_end", "reset": "reset", "timeout": "timeout"}
"""Fault kinds that say how the answer ends on the connection (`replay.faults`)."""


@dataclass
class Fault:
    kind: str
    params: dict[str, str] = field(default_factory=dict)
    times: int | None = None

    @classmethod
    def parse(cls, spec: str) -> Fault:
        parts = [p.strip() for p in spec.split(";") if p.strip()]
        if not parts:
            raise InputError("empty fault", where=f"fault {spec!r}")
        head, *rest = parts
        params: dict[str, str] = {}
        for item in rest:
            key, sep, value = item.partition("=")
            if not sep:
                raise InputError(f"expected key=value, got {item!r}", where=f"fault {spec!r}")
            params[key] = value
        kind, _, value = head.partition("=")
        if kind in ("cut", "end", "rechunk"):
            params[kind] = value or "0"
        elif kind not in ("429", "500", "503", "529", "error-event", "reset", "timeout"):
            raise InputError(
                "unknown fault; use 429, 500, 503, 529, cut=N, end=N, reset, timeout, error-event or rechunk=SEED",
                where=f"fault {spec!r}",
            )
        for name in ("times", "cut", "end", "rechunk"):
            if name in params and not (params[name].isascii() and params[name].isdigit()):
                raise InputError(f"{name} must be a whole number, got {params[name]!r}", where=f"fault {spec!r}")
        if any(ord(c) < 32 or ord(c) == 127 for c in params.get("retry-after", "")):
            raise InputError("retry-after holds a control character", where=f"fault {spec!r}")
        times = int(params.pop("times")) if "times" in params else None
        return cls(kind, params, times)

    def error_response(self, dialect: str) -> tuple[int, dict[str, str], bytes] | None:
        if not self.kind.isdigit():
            return None
        status = int(self.kind)
        ctype, body = _ERRORS[dialect][status]
        headers = {"content-type": ctype}
        if "retry-after" in self.params:
            headers["retry-after"] = self.params["retry-after"]
        return status, headers, body.encode()

    def ending(self) -> FaultKind | None:
        """How the answer ends on the connection when this fault says (`drop` for `cut`), else None."""
        return _ENDINGS.get(self.kind)

    def shape_stream(self, body: bytes, dialect: str) -> bytes:
        if self.kind in ("cut", "end"):
            return body[: int(self.params[self.kind])]
        if self.kind == "error-event":
            sep = _RECORD_ENDS.get(dialect, b"\n\n")
            first = body.find(sep)
            cut = len(body) if first < 0 else first + len(sep)
            return body[:cut] + _STREAM_ERRORS[dialect]
        return body

    def chunks(self, body: bytes, size: int) -> list[bytes]:
        if self.kind == "rechunk":
            rng = random.Random(int(self.params["rechunk"]))
            cuts = (
                sorted({rng.randrange(1, len(body)) for _ in range(max(1, len(body) // 16))}) if len(body) > 1 else []
            )
            return [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
        return [body[i : i + size] for i in range(0, len(body), size)] or [b""]
