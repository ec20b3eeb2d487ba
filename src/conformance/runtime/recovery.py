"""Finding JSON objects inside a damaged line, in time linear in the line's length.

A transcript line that is not one JSON message may still hold messages after a crash fragment
(``{"role":"user","con{"role":"assistant",…}``). Trying a parser at every ``{`` is quadratic when
each try runs far before failing; here one iterative scanner (no recursion, so no depth limit of
the interpreter) validates a value starting at a position, and the outcome of every object it
meets nested inside (where it ends or fails, how deep it goes) is remembered by position. A later
try from that position — a value parsed from a position does not depend on how the scanner got
there — jumps over it instead of scanning it again, so each object is scanned once. Records
nested more than `MAX_DEPTH` deep are skipped (the JSON parser and serializer would fail on them
further down); memory is bounded by the line.

`objects(text, accept)` yields the records found, left to right, never overlapping; the spans
between them are garbage.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

MAX_DEPTH = 200
"""Deepest nesting accepted in one record (tool arguments are JSON; 200 levels is plenty)."""
_MEMO_MIN = 32
"""Objects shorter than this are not remembered: scanning them again costs as little as a lookup."""

_WS = re.compile(r"[ \t\r\n]*+")
_STRING = re.compile(r'"[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*+)*+"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][+-]?[0-9]++)?")
_LITERAL = re.compile(r"true|false|null")
_ROLE = '"role"'
_START = re.compile(r'\{[ \t\r\n]*+"')
"""Where a message can start: an object whose first key follows."""

# scanner states
_VALUE, _ITEM_OR_CLOSE, _KEY_OR_CLOSE, _KEY, _COLON, _AFTER_VALUE = range(6)


class _Outcome(NamedTuple):
    ok: bool
    end: int
    """End of the object (ok) or the position where it failed."""
    depth: int
    """Deepest nesting inside, counting the object itself."""
    role: bool = False


@dataclass
class Scanner:
    """Validates JSON objects in `text`; `work` counts the characters and tokens examined."""

    text: str
    memo: dict[int, _Outcome] = field(default_factory=dict)
    work: int = 0
    _start: int = -1

    def scan_object(self, start: int) -> _Outcome:  # noqa: C901 - one flat pass over the characters, for speed
        """Validate the object starting at `start` (a ``{``)."""
        text, n = self.text, len(self.text)
        self._start = start  # a try's own start is never tried again: not remembered
        frames: list[list[Any]] = []  # each: [start, is_object, depth below, has a "role" key]
        pos, state = start, _VALUE
        while True:
            self.work += 1
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if pos >= n:
                return self._fail(frames, pos)
            ch = text[pos]
            if state == _VALUE:
                if ch == "{" and frames and (known := self.memo.get(pos)) is not None:
                    if not known.ok:
                        return self._fail(frames, known.end)
                    frames[-1][2] = max(frames[-1][2], known.depth)
                    pos, state = known.end, _AFTER_VALUE
                elif ch == "{" or ch == "[":
                    frames.append([pos, ch == "{", 0, False])
                    pos, state = pos + 1, (_KEY_OR_CLOSE if ch == "{" else _ITEM_OR_CLOSE)
                else:
                    match = (
                        _STRING.match(text, pos) if ch == '"' else _NUMBER.match(text, pos) or _LITERAL.match(text, pos)
                    )
                    if match is None:
                        return self._fail(frames, pos)
                    self.work += match.end() - pos
                    pos, state = match.end(), _AFTER_VALUE
            elif state == _ITEM_OR_CLOSE:
                if ch == "]":
                    if (done := self._close(frames, pos)) is not None:
                        return done
                    pos, state = pos + 1, _AFTER_VALUE
                else:
                    state = _VALUE
            elif state in (_KEY_OR_CLOSE, _KEY):
                if ch == "}" and state == _KEY_OR_CLOSE:
                    if (done := self._close(frames, pos)) is not None:
                        return done
                    pos, state = pos + 1, _AFTER_VALUE
                elif ch == '"' and (match := _STRING.match(text, pos)) is not None:
                    self.work += match.end() - pos
                    if match.end() - pos == len(_ROLE) and match.group() == _ROLE:
                        frames[-1][3] = True
                    pos, state = match.end(), _COLON
                else:
                    return self._fail(frames, pos)
            elif state == _COLON:
                if ch != ":":
                    return self._fail(frames, pos)
                pos, state = pos + 1, _VALUE
            else:  # _AFTER_VALUE
                is_object = frames[-1][1]
                if ch == ",":
                    pos, state = pos + 1, (_KEY if is_object else _VALUE)
                elif ch == ("}" if is_object else "]"):
                    if (done := self._close(frames, pos)) is not None:
                        return done
                    pos += 1
                else:
                    return self._fail(frames, pos)

    def _close(self, frames: list[list[Any]], pos: int) -> _Outcome | None:
        """Close the innermost frame at `pos` (its closer); the outcome when it was the outermost."""
        frame = frames.pop()
        outcome = self._outcome(frame, pos + 1, True)
        if not frames:
            return outcome
        frames[-1][2] = max(frames[-1][2], outcome.depth)
        return None

    def _outcome(self, frame: list[Any], end: int, ok: bool) -> _Outcome:
        outcome = _Outcome(ok, end, frame[2] + 1, frame[3])
        if frame[1] and frame[0] != self._start and (not ok or end - frame[0] >= _MEMO_MIN):
            self.memo[frame[0]] = outcome
        return outcome

    def _fail(self, frames: list[list[Any]], pos: int) -> _Outcome:
        """Every open frame fails at `pos` (what follows a nested start does not depend on the outer)."""
        outcome = _Outcome(False, pos, 0)
        for frame in frames:
            outcome = self._outcome(frame, pos, False)
        return outcome


def objects(
    text: str, accept: Callable[[Any], object | None], scanner: Scanner | None = None
) -> Iterator[tuple[int, int, Any]]:
    """Records in `text`: `(start, end, accept(value))` for each valid JSON object with a ``"role"``
    key that `accept` turns into something (not None), left to right; after one, the search goes
    on at its end, after anything else at the next ``{``."""
    scanner = scanner or Scanner(text)
    found = _START.search(text)
    while found is not None:
        pos = found.start()
        outcome = scanner.memo.get(pos) or scanner.scan_object(pos)
        if outcome.ok and outcome.role and outcome.depth <= MAX_DEPTH:
            try:
                record = accept(json.loads(text[pos : outcome.end]))
            except (ValueError, RecursionError):  # pragma: no cover - the scanner accepted it
                record = None
            if record is not None:
                yield pos, outcome.end, record
                found = _START.search(text, outcome.end)
                continue
        found = _START.search(text, pos + 1)
