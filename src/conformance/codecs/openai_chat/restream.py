"""A Chat Completions answer (`chat.completion`) as the stream a `stream: true` request gets.

https://platform.openai.com/docs/api-reference/chat-streaming: `chat.completion.chunk` objects, each
choice's message in `delta` (the role and content first, each tool call with its `index`, `id`,
`type` and `function`), its `finish_reason` in the last chunk of the choice; with
`stream_options.include_usage`, one more chunk with no choices and the `usage`; then `data: [DONE]`.
"""

from __future__ import annotations

from typing import Any

from conformance.codecs.restream import sse

_NOT_IN_CHUNKS = frozenset({"object", "choices", "usage"})
"""Top-level keys each chunk does not repeat; the others (`id`, `model`, a gateway's `citations`) it does."""


def restream(data: Any, request: Any) -> bytes:
    """The SSE body of the same answer; `request` is the body that asked for the stream."""
    head = {k: v for k, v in data.items() if k not in _NOT_IN_CHUNKS}
    head["object"] = "chat.completion.chunk"
    events: list[tuple[str | None, object]] = []

    def chunk(index: int, delta: dict[str, Any], finish: Any = None) -> None:
        choice = {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}
        events.append((None, {**head, "choices": [choice]}))

    for choice in data.get("choices") or []:
        index = choice.get("index", 0)
        message = dict(choice.get("message") or {})
        calls = message.pop("tool_calls", None) or []
        delta = {k: v for k, v in message.items() if v not in (None, [], "")}
        chunk(index, {"role": message.get("role", "assistant"), **delta})
        for i, call in enumerate(calls):
            chunk(index, {"tool_calls": [{"index": i, **call}]})
        chunk(index, {}, choice.get("finish_reason"))
    options = request.get("stream_options") if isinstance(request, dict) else None
    if isinstance(options, dict) and options.get("include_usage") and "usage" in data:
        events.append((None, {**head, "choices": [], "usage": data["usage"]}))
    return sse(events, done=True)


__all__ = ["restream"]
