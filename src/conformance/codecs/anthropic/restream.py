"""An Anthropic Messages answer (`message`) as the stream a `stream: true` request gets.

https://docs.anthropic.com/en/docs/build-with-claude/streaming: `message_start` (the message with
empty content), per content block `content_block_start`, its deltas (`text_delta`,
`thinking_delta` then `signature_delta`, `input_json_delta` with the input as JSON text) and
`content_block_stop`, then `message_delta` (stop reason and the cumulative usage) and
`message_stop`. A block of another kind (a server tool's result, redacted thinking) starts whole.
"""

from __future__ import annotations

from typing import Any

import orjson

from conformance.codecs.restream import sse

Events = list[tuple[str | None, object]]


def _block(index: int, block: dict[str, Any], events: Events) -> None:
    kind = block.get("type")

    def start(body: dict[str, Any]) -> None:
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": body}))

    def delta(body: dict[str, Any]) -> None:
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": body}))

    if kind == "text":
        start({**{k: v for k, v in block.items() if k != "citations"}, "text": ""})
        for citation in block.get("citations") or []:
            delta({"type": "citations_delta", "citation": citation})
        delta({"type": "text_delta", "text": block.get("text", "")})
    elif kind == "thinking":
        start({"type": "thinking", "thinking": "", "signature": ""})
        delta({"type": "thinking_delta", "thinking": block.get("thinking", "")})
        if block.get("signature"):
            delta({"type": "signature_delta", "signature": block["signature"]})
    elif kind in ("tool_use", "server_tool_use"):
        start({**block, "input": {}})
        delta({"type": "input_json_delta", "partial_json": orjson.dumps(block.get("input", {})).decode()})
    else:
        start(block)
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))


def restream(data: Any, request: Any) -> bytes:
    """The SSE body of the same answer (`request`: the body that asked for the stream)."""
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    opening = {**data, "content": [], "stop_reason": None, "stop_sequence": None}
    events: Events = [("message_start", {"type": "message_start", "message": opening})]
    for index, block in enumerate(data.get("content") or []):
        _block(index, block, events)
    tail = {"stop_reason": data.get("stop_reason"), "stop_sequence": data.get("stop_sequence")}
    events.append(("message_delta", {"type": "message_delta", "delta": tail, "usage": usage}))
    events.append(("message_stop", {"type": "message_stop"}))
    return sse(events)


__all__ = ["restream"]
