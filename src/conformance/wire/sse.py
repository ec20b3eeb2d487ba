"""Incremental Server-Sent Events decoder following the WHATWG event-stream rules.

`feed(bytes)` returns the events completed so far and `finish()` the rest, so the frames are the
same for any split of the input. Rules implemented (html.spec.whatwg.org, "Parsing an event
stream"): UTF-8 with one leading BOM stripped; lines end at CRLF, LF or CR (a CR at the end of a
chunk may be the first half of a CRLF); lines starting with `:` are comments; `field: value` with
one leading space removed from the value; `data` lines joined with LF; `event` names the type
(default `message`); `id` persists across events unless it holds NUL; `retry` takes ASCII
digits only; an empty line dispatches, and an event with no data is not dispatched.

One deliberate difference: at end of input the spec discards an event that was not followed by a
blank line. Providers do end streams that way, so `finish()` dispatches it.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from conformance.exceptions import WireFormatError

_LINE_END = re.compile(r"\r\n|\r|\n")
_SIMPLE_EVENT = re.compile(r"(?:(?<=\n\n)|^)(?:event: ([^\n]*)\n)?data: ([^\n]*)(?=\n\n|\Z)")
"""A whole event of one optional `event:` line and one `data:` line (the shape providers send)."""

SSEFrame = tuple[str, str, str | None, int | None]
"""An event as `(event, data, id, retry)`: what `frames` returns, without building objects."""


@dataclass(slots=True)
class SSEEvent:
    """One dispatched event (read-only by convention; not `frozen`, which makes it slow to build)."""

    event: str
    data: str
    id: str | None = None
    retry: int | None = None


class SSEDecoder:
    """One decoder per stream; not reusable after `finish()`."""

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")("strict")
        self._tail = ""
        self._pieces: list[str] = []
        """Text after `_tail` with no line end yet, joined once a line end arrives (appending to
        one string per chunk copies a long line again for every chunk)."""
        self._skip_lf = False
        self._started = False
        self._offset = 0
        self._data: list[str] = []
        self._event = ""
        self._last_id: str | None = None
        self._retry: int | None = None
        self.comments: list[str] = []
        """Comment lines seen (without the colon), e.g. keep-alives."""

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        return [SSEEvent(*frame) for frame in self.frames(chunk)]

    def finish(self) -> list[SSEEvent]:
        return [SSEEvent(*frame) for frame in self.finish_frames()]

    def frames(self, chunk: bytes) -> list[SSEFrame]:
        """`feed` as tuples (the codecs' hot path)."""
        try:
            text = self._utf8.decode(chunk)
        except UnicodeDecodeError as exc:
            raise WireFormatError(
                f"SSE stream is not valid UTF-8 ({exc.reason})", where=f"byte {self._offset + exc.start}"
            ) from None
        self._offset += len(chunk)
        return self._feed_text(text)

    def finish_frames(self) -> list[SSEFrame]:
        """`finish` as tuples."""
        try:
            rest = self._utf8.decode(b"", final=True)
        except UnicodeDecodeError:
            raise WireFormatError("SSE stream ends inside a UTF-8 sequence", where=f"byte {self._offset}") from None
        out = self._feed_text(rest)
        tail = self._whole_tail()
        if tail:
            self._line(tail, out)
        self._dispatch(out)
        return out

    def _feed_text(self, text: str) -> list[SSEFrame]:
        if not self._started and text:
            self._started = True
            if text[0] == "\ufeff":
                text = text[1:]
        if self._skip_lf and text:
            self._skip_lf = False
            if text[0] == "\n":
                text = text[1:]
        if "\n" not in text and "\r" not in text:  # no line ends: nothing to read yet (small chunks)
            if text:
                self._pieces.append(text)
            return []
        tail = self._whole_tail()
        buf = tail + text if tail else text
        out: list[SSEFrame] = []
        if "\r" not in buf:
            return self._feed_lf(buf, out)
        pos = 0
        for match in _LINE_END.finditer(buf):
            self._line(buf[pos : match.start()], out)
            pos = match.end()
        if pos == len(buf) and buf.endswith("\r"):
            self._skip_lf = True  # the LF of a CRLF may start the next chunk
        self._tail = buf[pos:]
        return out

    def _whole_tail(self) -> str:
        """The unfinished line so far (and forget it)."""
        if self._pieces:
            self._pieces.insert(0, self._tail)
            tail = "".join(self._pieces)
            self._pieces.clear()
        else:
            tail = self._tail
        self._tail = ""
        return tail

    def _feed_lf(self, buf: str, out: list[SSEFrame]) -> list[SSEFrame]:
        """The common case (LF line endings only): whole events between blank lines are read as
        blocks, the usual `event:`/`data:` shapes without a per-line loop; the rest line by line."""
        end = buf.rfind("\n\n")
        if end < 0:
            return self._lines_lf(buf, out)
        start = 0
        if self._data or self._event or self._retry is not None:  # finish the event in progress
            start = buf.find("\n\n") + 2
            self._lines_lf(buf[:start], out)
        if start < end:
            last_id = self._last_id
            region = buf[start:end]
            if region.startswith("event: "):
                simple = _SIMPLE_EVENT.findall(region)
                if len(simple) == region.count("\n\n") + 1:  # every event has the simple shape
                    out += [(event or "message", data, last_id, None) for event, data in simple]
                    return self._lines_lf(buf[end + 2 :], out)
            for block in region.split("\n\n"):
                if block.startswith("data: "):
                    if "\n" not in block:
                        out.append(("message", block[6:], last_id, None))
                        continue
                elif block.startswith("event: "):
                    nl = block.find("\n")
                    if nl > 0 and block.startswith("data: ", nl + 1) and block.find("\n", nl + 1) < 0:
                        out.append((block[7:nl] or "message", block[nl + 7 :], last_id, None))
                        continue
                for line in block.split("\n"):
                    self._line(line, out)
                self._dispatch(out)
                last_id = self._last_id
        return self._lines_lf(buf[end + 2 :], out)

    def _lines_lf(self, buf: str, out: list[SSEFrame]) -> list[SSEFrame]:
        """Line by line, `data:` lines inline; the unfinished last line is kept for the next chunk."""
        lines = buf.split("\n")
        self._tail = lines.pop()
        data = self._data
        for line in lines:
            if line.startswith("data:"):
                data.append(line[6:] if line.startswith("data: ") else line[5:])
            elif line:
                self._line(line, out)
            else:
                if data:
                    out.append((self._event or "message", "\n".join(data), self._last_id, self._retry))
                    data.clear()
                self._event = ""
                self._retry = None
        return out

    def _line(self, line: str, out: list[SSEFrame]) -> None:
        if not line:
            self._dispatch(out)
            return
        if line[0] == ":":
            self.comments.append(line[1:].lstrip(" "))
            return
        colon = line.find(":")
        if colon < 0:
            field, value = line, ""
        else:
            field, value = line[:colon], line[colon + 1 :]
            if value[:1] == " ":
                value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:
            self._last_id = value
        elif field == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)

    def _dispatch(self, out: list[SSEFrame]) -> None:
        if self._data:
            out.append((self._event or "message", "\n".join(self._data), self._last_id, self._retry))
            self._data.clear()
        self._event = ""
        self._retry = None


def parse_sse(body: bytes) -> list[SSEEvent]:
    """All events of a complete body."""
    decoder = SSEDecoder()
    return decoder.feed(body) + decoder.finish()
