"""`<think>…</think>` in content → thinking, for models that reason inline.

Incremental: a tag may be split across deltas at any character (`"<thi"` + `"nk>"`), so a suffix
that could still become a tag is held back until the next delta (or the end). One splitter per
stream; state never outlives it.
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["text", "thinking"]

_OPEN, _CLOSE = "<think>", "</think>"


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of `tag`."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0


class ThinkTagSplitter:
    def __init__(self) -> None:
        self._inside = False
        self._held = ""

    def feed(self, text: str) -> list[tuple[Kind, str]]:
        buf = self._held + text
        self._held = ""
        out: list[tuple[Kind, str]] = []
        while buf:
            tag = _CLOSE if self._inside else _OPEN
            kind: Kind = "thinking" if self._inside else "text"
            at = buf.find(tag)
            if at >= 0:
                if at:
                    out.append((kind, buf[:at]))
                buf = buf[at + len(tag) :]
                self._inside = not self._inside
                continue
            hold = _partial_suffix(buf, tag)
            if hold:
                self._held = buf[-hold:]
                buf = buf[:-hold]
            if buf:
                out.append((kind, buf))
            break
        return out

    def finish(self) -> list[tuple[Kind, str]]:
        """What was held back, as what it is (an unfinished tag is just text)."""
        held, self._held = self._held, ""
        return [("thinking" if self._inside else "text", held)] if held else []
