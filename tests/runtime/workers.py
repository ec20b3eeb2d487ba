"""Process targets for the concurrency tests (importable by spawned children)."""

from __future__ import annotations

from conformance.model import TextBlock, UserMessage
from conformance.runtime.transcripts import append_message


def append_many(path: str, writer: int, count: int) -> None:
    for n in range(count):
        text = f"writer {writer} message {n} " + "x" * 2000
        append_message(path, UserMessage(content=[TextBlock(text=text)]))
