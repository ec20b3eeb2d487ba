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


class NDJSONDecoder:
    def __init__(self) -> None:
        self._tail = b""
        self._line_no = 0

    def feed(self, chunk: bytes) -> list[NDJSONRecord]:
        buf = self._tail + chunk if self._tail else chunk
        lines = buf.split(b"\n")
        self._tail = lines.pop()
        return [rec for raw in lines if (rec := self._record(raw)) is not None]

    def finish(self) -> list[NDJSONRecord]:
        raw, self._tail = self._tail, b""
        rec = self._record(raw)
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
