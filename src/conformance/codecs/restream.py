"""A recorded answer re-encoded as a stream: the same answer in the form a request that asks for a
stream gets (each dialect's `restream`, registered on its `Codec`).

The provider documents one answer and two ways of delivering it (`stream` in a request chooses
which: OpenAI Chat Completions, Anthropic Messages, Ollama), so a recording of the one is the
other's content: replay and the emulator answer a request that differs from the recorded one only
in its delivery keys (`RequestTable.delivery`) with the recorded body written in the stream form by
these writers, which the dialect's own stream reader reads back to the message its JSON reader
reads (tests/codecs/test_restream.py). An error answer is never streamed: it is answered as recorded.
"""

from __future__ import annotations

import orjson


def sse(events: list[tuple[str | None, object]], *, done: bool = False) -> bytes:
    """Server-sent events: one `event:` line (when named) and one `data:` line per event, then a blank
    line; `done` adds OpenAI's `data: [DONE]` terminator."""
    out = bytearray()
    for name, data in events:
        if name is not None:
            out += b"event: " + name.encode() + b"\n"
        out += b"data: " + orjson.dumps(data) + b"\n\n"
    if done:
        out += b"data: [DONE]\n\n"
    return bytes(out)


def ndjson(records: list[object]) -> bytes:
    """One JSON object per line."""
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


__all__ = ["ndjson", "sse"]
