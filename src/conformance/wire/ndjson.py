"""Incremental NDJSON decoder: one JSON value per line, any chunk split.

Blank lines are skipped. A line that is not valid JSON is returned as a record with `error` set
(and its line number), never raised and never dropped: the codec decides what it means (a
truncated last line is a cut stream, not corrupt input).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from conformance import jsonvalue


@dataclass(frozen=True, slots=True)
class NDJSONRecord:
    line: int
    value: Any = None
    raw: str = ""
    error: str | None = None


class LineBuffer:
    """Bytes → complete `\\n`-terminated lines (without the `\\n`), for any chunk split, in time
    linear in the input: the unfinished line is kept as a list of pieces and joined once, when its
    end arrives (prepending it to every chunk copies a long line again for each chunk: a 2 MiB
    line in 64-byte chunks is 64 GiB of copying)."""

    __slots__ = ("_pieces",)

    def __init__(self) -> None:
        self._pieces: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        end = chunk.rfind(b"\n")
        if end < 0:
            if chunk:
                self._pieces.append(chunk)
            return []
        head = chunk[: end + 1]
        if self._pieces:
            self._pieces.append(head)
            head = b"".join(self._pieces)
            self._pieces.clear()
        rest = chunk[end + 1 :]
        if rest:
            self._pieces.append(rest)
        lines = head.split(b"\n")
        lines.pop()  # the empty piece after the last `\n`
        return lines

    def finish(self) -> bytes:
        """The unfinished last line (empty when the input ended with `\\n`)."""
        rest = b"".join(self._pieces)
        self._pieces.clear()
        return rest


class NDJSONDecoder:
    def __init__(self) -> None:
        self._tail = LineBuffer()
        self._line_no = 0

    def feed(self, chunk: bytes) -> list[NDJSONRecord]:
        return [rec for raw in self._tail.feed(chunk) if (rec := self._record(raw)) is not None]

    def finish(self) -> list[NDJSONRecord]:
        rec = self._record(self._tail.finish())
        return [] if rec is None else [rec]

    def _record(self, raw: bytes) -> NDJSONRecord | None:
        self._line_no += 1
        stripped = raw.strip()
        if not stripped:
            return None
        text = stripped.decode("utf-8", errors="replace")
        try:
            return NDJSONRecord(self._line_no, jsonvalue.loads(stripped), text)
        except orjson.JSONDecodeError as exc:
            return NDJSONRecord(self._line_no, None, text, f"invalid JSON: {exc}")


def parse_ndjson(body: bytes) -> list[NDJSONRecord]:
    decoder = NDJSONDecoder()
    return decoder.feed(body) + decoder.finish()
