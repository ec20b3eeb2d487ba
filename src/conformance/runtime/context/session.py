"""Session files (JSONL transcripts) compacted so that a crash never leaves half a compaction.

`compact_session` summarises the older history of a session file:

1. a backup of the file is written first (``<session>.bak``, atomically);
2. the summary is asked for (see `compact`); on any typed failure the file is left as it was
   and the backup is removed;
3. the summary *and* the boundary (the removal of the messages it summarises) are written as one
   step: the new transcript — system prompt, summary, recent turns — replaces the file with one
   `os.replace`. There is no moment at which the file holds the summary with the old messages;
4. the file is read back; a file without any message besides the system prompt is a logic error:
   the backup is restored and the error is `empty_after_compaction`;
5. the backup is removed.

`recover_session` brings a session file back to a consistent state after a crash: temporary files
of an interrupted write are removed; a backup is restored when the file is missing or holds no
message besides the system prompt, and removed otherwise; a summary found away from its boundary
(the messages it summarises still present, e.g. written by an append) gets its boundary: the
``N`` messages its header names are removed. `append_messages` caps tool results before they are
persisted (`transcripts.cap_tool_results`), so the cap is visible in the file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.fileio import atomic_write
from conformance.model import Message, SystemMessage, TextBlock, UserMessage
from conformance.runtime.context.compact import CompactionError, CompactSettings, Summarizer, compact_messages
from conformance.runtime.transcripts import append_message, load_transcript, save_transcript

HEADER = re.compile(r"\[compaction summary of (\d+) earlier messages\]")

Writer = Callable[[Path, Sequence[Message]], None]


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def _write_backup(path: Path) -> Path:
    return atomic_write(backup_path(path), path.read_bytes(), fsync=True)


def _has_conversation(messages: Sequence[Message]) -> bool:
    return any(not isinstance(m, SystemMessage) for m in messages)


@dataclass
class SessionCompaction:
    summarized: int = 0
    error: CompactionError | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "summarized": self.summarized,
            "error": None if self.error is None else self.error.to_json(),
            "trace": self.trace,
        }


async def compact_session(
    path: str | os.PathLike[str],
    settings: CompactSettings,
    model: str | None,
    via: Summarizer,
    *,
    writer: Writer = save_transcript,
) -> SessionCompaction:
    """Compact the session file at `path` (see the module doc)."""
    target = Path(path)
    messages = load_transcript(target).messages
    backup = _write_backup(target)
    result = await compact_messages(messages, settings, model, via)
    if result.error is not None:
        backup.unlink(missing_ok=True)
        return SessionCompaction(0, result.error, result.trace)
    writer(target, result.messages)
    if not _has_conversation(load_transcript(target).messages):
        os.replace(backup, target)
        error = CompactionError("empty_after_compaction", "the compacted session was empty: restored from the backup")
        return SessionCompaction(0, error, [*result.trace, {"action": "restore"}])
    backup.unlink(missing_ok=True)
    return SessionCompaction(result.summarized, None, result.trace)


def _stale_temps(target: Path) -> list[Path]:
    prefixes = (f".{target.name}.", f".{backup_path(target).name}.")
    return sorted(p for p in target.parent.iterdir() if p.name.endswith(".tmp") and p.name.startswith(prefixes))


def _summary_count(message: Message) -> int | None:
    if not isinstance(message, UserMessage) or not message.content:
        return None
    first = message.content[0]
    if not isinstance(first, TextBlock):
        return None
    match = HEADER.match(first.text)
    return int(match.group(1)) if match else None


def recover_session(path: str | os.PathLike[str], *, writer: Writer = save_transcript) -> list[dict[str, Any]]:
    """Bring the session file at `path` back to a consistent state (see the module doc)."""
    target = Path(path)
    actions: list[dict[str, Any]] = []
    for tmp in _stale_temps(target):
        tmp.unlink()
        actions.append({"action": "remove_temp"})
    backup = backup_path(target)
    if backup.is_file():
        current = load_transcript(target).messages if target.is_file() else []
        if _has_conversation(current):
            backup.unlink()
            actions.append({"action": "remove_backup"})
        else:
            os.replace(backup, target)
            actions.append({"action": "restore"})
    if not target.is_file():
        return actions
    messages = load_transcript(target).messages
    n_system = 0
    while n_system < len(messages) and isinstance(messages[n_system], SystemMessage):
        n_system += 1
    for i in range(len(messages) - 1, n_system - 1, -1):
        count = _summary_count(messages[i])
        if count is None:
            continue
        before = messages[n_system:i]
        if before and count <= len(before):
            rest = [*before[count:], *messages[i + 1 :]]
            writer(target, [*messages[:n_system], messages[i], *rest])
            actions.append({"action": "restore_boundary", "count": count})
        break
    return actions


def append_messages(
    path: str | os.PathLike[str], messages: Sequence[Message], *, max_tool_result_chars: int | None = None
) -> None:
    """Append `messages`, tool results capped to `max_tool_result_chars` first (when given)."""
    for message in messages:
        append_message(path, message, max_tool_result_chars=max_tool_result_chars)
