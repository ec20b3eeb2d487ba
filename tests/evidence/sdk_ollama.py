"""What the official ollama SDK makes of a recorded `/api/chat` response, as a `Summary`.

Each record is validated with `ollama.ChatResponse`; content and tool calls are accumulated,
usage and `done_reason` come from the `done: true` record. Stop reasons are normalized here with
the wire reference's table (§7), independently of the codec.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from ollama import ChatResponse

from tests.evidence.summary import Summary

_DONE = {"stop": "stop", "length": "length", "load": "stop", "unload": "stop"}


def sdk_summary(status: int, headers: Mapping[str, str], body: bytes, stream: bool) -> Summary | None:
    """None for an HTTP error (the SDK raises `ResponseError`; there is no message to compare)."""
    del headers
    if status >= 400:
        return None
    lines = [line for line in body.splitlines() if line.strip()] if stream else [body]
    text: list[str] = []
    calls: list[tuple[str, dict[str, Any]]] = []
    input_tokens = output_tokens = None
    stop: str | None = None
    for line in lines:
        try:
            raw = orjson.loads(line)
        except orjson.JSONDecodeError:
            break  # the SDK's json.loads raises here; what came before stands
        if not isinstance(raw, dict) or "error" in raw:
            break
        record = ChatResponse.model_validate(raw)
        text.append(record.message.content or "")
        for call in record.message.tool_calls or []:
            calls.append((call.function.name, dict(call.function.arguments)))
        if record.done:
            input_tokens, output_tokens = record.prompt_eval_count, record.eval_count
            reason = record.done_reason or "stop"
            stop = _DONE.get(reason, "error")
            if stop == "stop" and calls:
                stop = "tool_use"
    return Summary(
        text="".join(text),
        tool_calls=calls,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        stop=stop,
    )
