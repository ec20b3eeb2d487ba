"""JSONL transcripts on disk: one normalized message per line.

Loading is streaming (line by line; memory does not grow with the file) and forgiving, because a
transcript is what survives a crash:

- NUL bytes (the zero padding some filesystems leave after a crash) are removed, with a warning,
  while reading (blocks of 64 KiB), so memory is bounded by the longest record, not the padding;
- a line that is not one JSON message is searched for records that start later in the line: a
  crash fragment glued to the next record (``{"role":"user","con{"role":"assistant",…}``) gives
  back the good record; the fragment is skipped with a warning naming the line. The search is
  linear in the line's length whatever the damage, and a record nested deeper than
  `recovery.MAX_DEPTH` is skipped like any other malformed one (see `conformance.runtime.recovery`);
- a truncated last line and a missing final newline are handled the same way;
- a JSON escape of half a UTF-16 surrogate pair (text cut inside an emoji) becomes U+FFFD, with
  a warning, as invalid UTF-8 does;
- blank lines are skipped; the source file is never modified (it is only opened for reading).

Writing is atomic and safe with several processes writing one transcript: every writer takes
``FileLock(path + ".lock")``. `append_message` writes one full line with a single write, then
flushes and fsyncs; if the file does not end with a newline (an earlier writer crashed mid-line)
a newline goes first, so the new record is never glued to the fragment. `save_transcript` writes
a temporary file in the same directory and `os.replace`s it over the transcript.

`cap_tool_results` caps oversized tool results before they are persisted: the text beyond
``max_chars`` is cut and a trailing text block ``[truncated N chars]`` records how much, so the
cap stays visible to the model and to anyone reading the transcript. Images are not counted.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from filelock import FileLock
from pydantic import ValidationError

from conformance.exceptions import TranscriptError
from conformance.fileio import atomic_write
from conformance.model import Message, TextBlock, ToolResultMessage, dump, parse_message
from conformance.runtime.recovery import objects

_TRUNCATED = re.compile(r"\[truncated (\d+) chars\]")


@dataclass(frozen=True)
class LoadResult:
    messages: list[Message]
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Record:
    """One item read from a transcript: a message, or a warning about a line."""

    line: int
    message: Message | None = None
    warning: str | None = None


def _records_in(text: str, line: int) -> Iterator[Record]:
    """Every message in one line; the broken parts become warnings (linear time, see `recovery`)."""
    start_of_garbage = 0
    for start, end, message in objects(text, _message):
        if text[start_of_garbage:start].strip():
            yield Record(line, warning=_garbage(line, text[start_of_garbage:start]))
        yield Record(line, message=message)
        start_of_garbage = end
    if text[start_of_garbage:].strip():
        yield Record(line, warning=_garbage(line, text[start_of_garbage:]))


def _garbage(line: int, fragment: str) -> str:
    shown = fragment.strip()
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"line {line}: skipped a malformed or truncated record ({len(fragment.strip())} chars: {shown!r})"


def _message(value: Any) -> Message | None:
    try:
        return parse_message(value)
    except ValidationError:
        return None


def iter_transcript(path: str | os.PathLike[str]) -> Iterator[Record]:
    """Read `path` record by record (see the module doc). Unreadable → `TranscriptError`."""
    from conformance.runtime.repair.surrogates import mend_surrogate_escapes

    try:  # non-blocking first: a FIFO is refused instead of waiting for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise TranscriptError(f"cannot read transcript ({exc.strerror or exc})", where=str(path)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = "a directory" if stat.S_ISDIR(mode) else "not a regular file (a FIFO, socket or device)"
        raise TranscriptError(f"cannot read transcript ({what})", where=str(path))
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as handle:
        for number, (raw, nuls) in enumerate(_lines(handle), start=1):
            if nuls:
                yield Record(number, warning=f"line {number}: removed {nuls} NUL byte(s)")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("utf-8", errors="replace")
                yield Record(number, warning=f"line {number}: invalid UTF-8 replaced with U+FFFD")
            text, mended = mend_surrogate_escapes(text)
            if mended:
                yield Record(
                    number, warning=f"line {number}: replaced {mended} unpaired UTF-16 surrogate(s) with U+FFFD"
                )
            yield from _records_in(text, number)


def _lines(handle: BinaryIO, block_size: int = 1 << 16) -> Iterator[tuple[bytes, int]]:
    """(line without NULs and newline, number of NULs removed), reading fixed-size blocks, so a
    long run of NUL padding never sits in memory."""
    line = bytearray()
    nuls = 0
    while block := handle.read(block_size):
        pieces = block.split(b"\n")
        for n, piece in enumerate(pieces):
            count = piece.count(b"\x00")
            nuls += count
            line += piece.replace(b"\x00", b"") if count else piece
            if n < len(pieces) - 1:
                yield bytes(line), nuls
                line.clear()
                nuls = 0
    if line or nuls:
        yield bytes(line), nuls


def load_transcript(path: str | os.PathLike[str]) -> LoadResult:
    messages: list[Message] = []
    warnings: list[str] = []
    for record in iter_transcript(path):
        if record.message is not None:
            messages.append(record.message)
        if record.warning is not None:
            warnings.append(record.warning)
    return LoadResult(messages, warnings)


def _line(message: Message) -> bytes:
    return (json.dumps(dump(message), ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _lock(path: str | os.PathLike[str]) -> FileLock:
    return FileLock(os.fspath(path) + ".lock")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def append_message(path: str | os.PathLike[str], message: Message, *, max_tool_result_chars: int | None = None) -> None:
    """Append one message as one line (locked, one write, flushed and fsynced); a tool result is
    capped to `max_tool_result_chars` first when given (see `cap_tool_results`)."""
    if max_tool_result_chars is not None:
        message = cap_tool_results([message], max_tool_result_chars)[0]
    with _lock(path):
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            data = _line(message)
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)


def save_transcript(
    path: str | os.PathLike[str], messages: Sequence[Message], *, max_tool_result_chars: int | None = None
) -> None:
    """Replace the transcript atomically with `messages` (temp file + fsync + os.replace); tool
    results are capped to `max_tool_result_chars` first when given."""
    if max_tool_result_chars is not None:
        messages = cap_tool_results(messages, max_tool_result_chars)
    with _lock(path):
        atomic_write(Path(path), b"".join(_line(m) for m in messages), fsync=True)


def _capped(message: ToolResultMessage, max_chars: int) -> ToolResultMessage | None:
    content = list(message.content)
    already = 0
    last = content[-1] if content else None
    if isinstance(last, TextBlock) and (match := _TRUNCATED.fullmatch(last.text)):
        already = int(match.group(1))
        content = content[:-1]
    total = sum(len(b.text) for b in content if isinstance(b, TextBlock))
    if total <= max_chars:
        return None
    budget = max_chars
    kept: list[Any] = []
    for block in content:
        if isinstance(block, TextBlock):
            if budget <= 0:
                continue
            block = block.model_copy(update={"text": block.text[:budget]})
            budget -= len(block.text)
        kept.append(block)
    kept.append(TextBlock(text=f"[truncated {total - max_chars + already} chars]"))
    return message.model_copy(update={"content": kept}, deep=True)


def cap_tool_results(messages: Sequence[Message], max_chars: int) -> list[Message]:
    """Copies of `messages` whose tool results hold at most `max_chars` text characters (plus the
    ``[truncated N chars]`` marker). Idempotent: a capped result is not capped again."""
    if max_chars < 0:
        raise ValueError("max_chars must be >= 0")
    out: list[Message] = []
    for message in messages:
        capped = _capped(message, max_chars) if isinstance(message, ToolResultMessage) else None
        out.append(capped if capped is not None else message.model_copy(deep=True))
    return out
