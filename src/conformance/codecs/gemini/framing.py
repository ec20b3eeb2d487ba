"""Gemini stream bytes → JSON values, for any chunk split.

A Gemini stream is SSE `data:` events (`?alt=sse`), but two other shapes share the wire: an error
sent mid-stream as a raw JSON object spread over several lines without a `data:` prefix (the
official SDK brace-counts to reassemble it), and the JSON-array form of `streamGenerateContent`
without `alt=sse` (`[{…},\\n{…}]`). Lines are routed: a line that starts a raw JSON value (or
continues one) goes to a string-aware bracket scanner, every other line to the shared
`SSEDecoder`. Only `\\n` splits lines here; the SSE decoder still sees the CRs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from conformance import jsonvalue
from conformance.exceptions import WireFormatError
from conformance.wire import SSEDecoder
from conformance.wire.ndjson import LineBuffer


@dataclass(frozen=True, slots=True)
class Frame:
    value: Any = None
    error: str | None = None
    """Set when the frame is not valid JSON; `value` is then None."""
    where: str = ""
    final: bool = False
    """Completed only by end of input: a bad final frame is a cut stream, not corruption."""


class _JsonScanner:
    """Top-level JSON objects out of text; an outer array is a container of such objects."""

    def __init__(self) -> None:
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._in_array = False
        self._buf: list[str] = []

    @property
    def active(self) -> bool:
        return self._depth > 0 or self._in_array

    def feed(self, text: str) -> list[str]:  # noqa: C901 - one flat pass over the characters, for speed
        out: list[str] = []
        stray: list[str] = []
        for ch in text:
            if self._depth == 0:
                if ch.isspace() or (self._in_array and ch == ","):
                    continue
                if ch == "[" and not self._in_array:
                    self._in_array = True
                    continue
                if ch == "]" and self._in_array:
                    self._in_array = False
                    continue
                if ch not in "{[":
                    stray.append(ch)
                    continue
            self._buf.append(ch)
            if self._in_string:
                if self._escape:
                    self._escape = False
                elif ch == "\\":
                    self._escape = True
                elif ch == '"':
                    self._in_string = False
            elif ch == '"':
                self._in_string = True
            elif ch in "{[":
                self._depth += 1
            elif ch in "}]":
                self._depth -= 1
                if self._depth == 0:
                    out.append("".join(self._buf))
                    self._buf = []
        if stray:  # text outside any value: handed on so it fails to parse, never dropped
            out.append("".join(stray))
        return out

    def finish(self) -> str | None:
        """The unfinished value, if any."""
        rest = "".join(self._buf)
        self._buf, self._depth, self._in_array = [], 0, False
        return rest or None


def _frame(text: str, where: str, *, final: bool) -> Frame:
    try:
        return Frame(jsonvalue.loads(text), where=where, final=final)
    except orjson.JSONDecodeError as exc:
        return Frame(None, f"invalid JSON ({exc}): {text[:120]!r}", where, final)


class GeminiFramer:
    def __init__(self) -> None:
        self._sse = SSEDecoder()
        self._json = _JsonScanner()
        self._tail = LineBuffer()
        self._line = 0
        self._events = 0

    def feed(self, chunk: bytes) -> list[Frame]:
        out: list[Frame] = []
        for line in self._tail.feed(chunk):
            self._route(line + b"\n", out, final=False)
        return out

    def finish(self) -> list[Frame]:
        out: list[Frame] = []
        if tail := self._tail.finish():
            self._route(tail, out, final=True)
        for event in self._sse.finish():
            out.append(self._event_frame(event.data, final=True))
        if (rest := self._json.finish()) is not None:
            out.append(_frame(rest, f"line {self._line}", final=True))
        return out

    def _route(self, line: bytes, out: list[Frame], *, final: bool) -> None:
        self._line += 1
        if self._json.active or line.lstrip()[:1] in (b"{", b"["):
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                where = f"line {self._line}"
                raise WireFormatError(f"stream is not valid UTF-8 ({exc.reason})", where=where) from None
            for value in self._json.feed(text):
                out.append(_frame(value, f"line {self._line}", final=final))
            return
        for event in self._sse.feed(line):
            out.append(self._event_frame(event.data, final=False))

    def _event_frame(self, data: str, *, final: bool) -> Frame:
        self._events += 1
        return _frame(data, f"SSE event {self._events}", final=final)
