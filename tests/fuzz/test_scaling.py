"""Linear paths: every path that once took quadratic (or worse) time on a hostile input, timed at
one size and at eight times that size. The contract: the median time at 8× is at most ten times
the median time at 1× (a quadratic path gives about 64×, a cubic one 512×).

Robust on a loaded shared machine: the two sizes are timed alternately (a pause hits both), the
medians of several runs are compared, and the 1× time is never taken as less than `FLOOR_S`, so
noise in a fast path cannot fail it; a path over the ratio is measured again once with more runs.
`python -m tests.fuzz.test_scaling` prints the medians and
ratios (the figures of docs/reliability.md).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from conformance.codecs.errorkit import is_context_overflow, retry_after_from_headers
from conformance.codecs.ollama.prompt_tools import extract_calls
from conformance.model import AssistantMessage, TextBlock
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.repair.surrogates import mend_surrogate_escapes
from conformance.secrets import redact_line, scrub_exact, unescape_ascii
from conformance.wire import NDJSONDecoder, SSEDecoder

RATIO = 10.0
"""Allowed growth of the median time when the input grows eight times."""
FLOOR_S = 0.05
"""The 1× median is taken as at least this long: scheduler noise on a fast path is not growth."""
RUNS = 5
RUNTIME = ReferenceRuntime()
SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}
NDJSON = {"content-type": "application/x-ndjson"}


def _chunks(body: bytes, size: int = 64) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def _gemini_stream(n: int) -> Callable[[], object]:
    event = {"candidates": [{"content": {"role": "model", "parts": [{"text": "x" * n}]}, "finishReason": "STOP"}]}
    chunks = _chunks(b"data: " + json.dumps(event).encode() + b"\r\n\r\n")
    return lambda: RUNTIME.decode("gemini", 200, SSE, chunks, True)


def _gemini_raw_error(n: int) -> Callable[[], object]:
    """A raw JSON error object (no `data:`) over many lines: the framer's bracket scanner."""
    body = b'{"error": {"code": 500, "message": "' + b"x" * n + b'",\n"status": "INTERNAL"}}\n'
    chunks = _chunks(body)
    return lambda: RUNTIME.decode("gemini", 200, SSE, chunks, True)


def _ollama_stream(n: int) -> Callable[[], object]:
    line = {"model": "m", "message": {"role": "assistant", "content": "x" * n}, "done": True, "done_reason": "stop"}
    chunks = _chunks(json.dumps(line).encode() + b"\n")
    return lambda: RUNTIME.decode("ollama", 200, NDJSON, chunks, True)


def _ndjson_framer(n: int) -> Callable[[], object]:
    chunks = _chunks(b'{"a": "' + b"x" * n + b'"}\n' + b"{" * n)

    def run() -> object:
        decoder = NDJSONDecoder()
        return [decoder.feed(c) for c in chunks] + [decoder.finish()]

    return run


def _sse_framer(n: int) -> Callable[[], object]:
    chunks = _chunks(b"data: " + b"x" * n + b"\n\n")

    def run() -> object:
        decoder = SSEDecoder()
        return [decoder.feed(c) for c in chunks] + [decoder.finish()]

    return run


def _openai_stream(n: int) -> Callable[[], object]:
    chunk = {"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "x" * n}, "finish_reason": "stop"}]}
    chunks = _chunks(b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n")
    return lambda: RUNTIME.decode("openai", 200, SSE, chunks, True)


def _surrogate_escapes(n: int) -> Callable[[], object]:
    line = '{"role": "user", "content": "' + "\\" * n + 'x \\u0041"}'  # an escape: the scan runs
    return lambda: mend_surrogate_escapes(line)


def _rate_limit_header(n: int) -> Callable[[], object]:
    headers = {"x-ratelimit-reset-requests": "1" * n, "x-ratelimit-reset-tokens": "1.1" * (n // 3)}
    body = json.dumps({"error": {"message": "slow down", "type": "rate_limit"}}).encode()
    return lambda: (
        retry_after_from_headers(headers),
        RUNTIME.decode("openai", 429, {**JSON, **headers}, [body], False),
    )


def _overflow_message(n: int) -> Callable[[], object]:
    messages = [
        "input length " * (n // 13),
        "requested 1 tokens " * (n // 19),
        "maximum context length is 1" * (n // 27),
    ]
    bodies = [json.dumps({"error": {"message": m, "type": "invalid_request_error"}}).encode() for m in messages]
    return lambda: (
        [is_context_overflow(m) for m in messages],
        [RUNTIME.decode("openai", 400, JSON, [b], False) for b in bodies],
        RUNTIME.decode("ollama", 400, JSON, [json.dumps({"error": messages[0]}).encode()], False),
    )


def _prompt_tool_fence(n: int) -> Callable[[], object]:
    message = AssistantMessage(content=[TextBlock(text="```" + " " * n + "json" + "\t" * n + "{")])
    return lambda: extract_calls(message)


def _redaction(n: int) -> Callable[[], object]:
    key = "Zq8vT3mK9pL2xR7wN4bH6cJ1yF5dG0sA"
    text = ("sk-" * (n // 8)) + ("Bearer " + " " * 50) * (n // 228) + key[:11] * (n // 44) + "\\" * (n // 4)
    escaped = "\\u005a" * (n // 12) + "\\u00" * (n // 8)
    return lambda: (redact_line(text), scrub_exact(text, (key,)), scrub_exact(escaped, (key,)), unescape_ascii(escaped))


@dataclass(frozen=True)
class Path_:
    name: str
    make: Callable[[int], Callable[[], object]]
    size: int
    """The 1× size (characters or bytes of the hostile part)."""


PATHS = [
    Path_("repair: a run of backslashes (surrogate escapes)", _surrogate_escapes, 32 * 1024),
    Path_("errors: a long rate-limit reset header", _rate_limit_header, 8 * 1024),
    Path_("errors: a long context-overflow-like 400 message", _overflow_message, 20 * 1024),
    Path_("gemini: one long event in 64-byte chunks", _gemini_stream, 32 * 1024),
    Path_("gemini: a raw JSON error in 64-byte chunks", _gemini_raw_error, 32 * 1024),
    Path_("ollama: one long NDJSON line in 64-byte chunks", _ollama_stream, 32 * 1024),
    Path_("ndjson framer: a long line, then a run of `{`", _ndjson_framer, 32 * 1024),
    Path_("sse framer: one long event in 64-byte chunks", _sse_framer, 32 * 1024),
    Path_("openai: one long event in 64-byte chunks", _openai_stream, 32 * 1024),
    Path_("ollama prompt tools: an open fence and long blanks", _prompt_tool_fence, 4 * 1024),
    Path_("secrets: key-like prefixes, bearer blanks, key pieces, escapes", _redaction, 32 * 1024),
]


def measure(path: Path_, runs: int = RUNS) -> tuple[float, float]:
    """(median seconds at 1×, median seconds at 8×), the two sizes timed alternately."""
    small, big = path.make(path.size), path.make(8 * path.size)
    small()  # warm-up: imports, caches
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for fn, out in ((small, times[0]), (big, times[1])):
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_eight_times_the_input_takes_at_most_ten_times_the_time(path: Path_) -> None:
    one, eight = measure(path)
    if eight > RATIO * max(one, FLOOR_S):  # measured again once: a burst of load is not growth
        one, eight = measure(path, runs=2 * RUNS + 1)
    assert eight <= RATIO * max(one, FLOOR_S), f"{path.name}: {one:.4f} s at 1×, {eight:.4f} s at 8×"


def main() -> None:
    print("| path | 1× size | median 1× | median 8× | ratio |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for path in PATHS:
        one, eight = measure(path, runs=7)
        print(f"| {path.name} | {path.size:,} | {one * 1000:.2f} ms | {eight * 1000:.2f} ms | ×{eight / one:.1f} |")


if __name__ == "__main__":
    main()
