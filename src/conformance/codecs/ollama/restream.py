"""An Ollama `/api/chat` answer as the stream a request without `stream: false` gets.

https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion: NDJSON objects,
the message's parts while `done` is false, then a last object with `done: true`, the `done_reason`
and the counters, its message empty.
"""

from __future__ import annotations

from typing import Any

from conformance.codecs.restream import ndjson


def restream(data: Any, request: Any) -> bytes:
    """The NDJSON body of the same answer (`request`: the body that asked for the stream)."""
    message = data.get("message") if isinstance(data.get("message"), dict) else {}
    parts = {k: data[k] for k in ("model", "created_at") if k in data}
    first = {**parts, "message": message, "done": False}
    last = {**data, "message": {"role": message.get("role", "assistant"), "content": ""}, "done": True}
    return ndjson([first, last])


__all__ = ["restream"]
