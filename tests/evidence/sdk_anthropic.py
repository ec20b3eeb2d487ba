"""What the official `anthropic` SDK makes of the same response bytes, fed offline.

The SDK (2.x) talks through `httpx2`; a `MockTransport` answers every request with the recorded
status, headers and body, so nothing leaves the machine. Numbers are normalized the way the
contract does (input tokens include cache reads and writes) so the two readings are comparable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anthropic
import httpx2

from tests.evidence.once import once_per_response
from tests.evidence.summary import ServerTool, Summary

# Anthropic `stop_reason` → contract stop reason (reference section 7 and the contract).
_STOP: dict[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_use",
    "refusal": "refusal",
}

_REQUEST: dict[str, Any] = {
    "model": "replay",  # a name the SDK has no deprecation warning for
    "max_tokens": 16,
    "messages": [{"role": "user", "content": "replay"}],
}


def _client(status: int, headers: Mapping[str, str], body: bytes) -> anthropic.Anthropic:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, headers=list(headers.items()), content=body, request=request)

    transport = httpx2.MockTransport(handler)
    return anthropic.Anthropic(api_key="test", max_retries=0, http_client=httpx2.Client(transport=transport))


@once_per_response()
def sdk_message(status: int, headers: Mapping[str, str], body: bytes, stream: bool) -> Any | None:
    """The SDK's message (non-stream: `messages.create`; stream: `messages.stream` and
    `get_final_message`); None when the SDK reports an API error instead. Read once per response
    (`tests/evidence/once.py`): the message is shared, read-only."""
    with _client(status, headers, body) as client:
        try:
            if stream:
                with client.messages.stream(**_REQUEST) as events:
                    return events.get_final_message()
            return client.messages.create(**_REQUEST)
        except anthropic.APIError:
            return None


_CLIENT_BLOCKS = frozenset({"text", "thinking", "redacted_thinking", "tool_use"})
"""Blocks the summary reads as text, calls and reasoning; every other block is server-side work."""


def _server_tools(message: Any) -> list[ServerTool]:
    out: list[ServerTool] = []
    for block in message.content:
        if block.type not in _CLIENT_BLOCKS:
            data = block.to_dict(mode="json")
            out.append((block.type, data.get("id") or data.get("tool_use_id"), None, data))
    return out


def summarize(message: Any) -> Summary:
    usage = message.usage
    input_tokens = (
        (usage.input_tokens or 0)
        + (getattr(usage, "cache_read_input_tokens", None) or 0)
        + (getattr(usage, "cache_creation_input_tokens", None) or 0)
    )
    return Summary(
        text="".join(b.text for b in message.content if b.type == "text"),
        tool_calls=[(b.name, dict(b.input or {})) for b in message.content if b.type == "tool_use"],
        input_tokens=input_tokens,
        output_tokens=usage.output_tokens,
        stop=_STOP.get(message.stop_reason) if message.stop_reason else None,
        server_tools=_server_tools(message),
    )


def sdk_summary(status: int, headers: Mapping[str, str], body: bytes, stream: bool) -> Summary | None:
    """The SDK's reading of one response; None when the SDK reports an API error instead."""
    message = sdk_message(status, headers, body, stream)
    return None if message is None else summarize(message)


def reasoning(message: Any) -> list[tuple[str, str, str | None]]:
    """Thinking blocks as `(type, text or data, signature)`, in wire order."""
    out: list[tuple[str, str, str | None]] = []
    for block in message.content:
        if block.type == "thinking":
            out.append(("thinking", block.thinking, block.signature or None))
        elif block.type == "redacted_thinking":
            out.append(("redacted_thinking", block.data, None))
    return out


def cache_tokens(message: Any) -> tuple[int, int]:
    """`(cache reads, cache writes)`."""
    usage = message.usage
    return (
        getattr(usage, "cache_read_input_tokens", None) or 0,
        getattr(usage, "cache_creation_input_tokens", None) or 0,
    )
