"""A small common summary of one decoded response, so ours and an official SDK's can be compared."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.model import Outcome, ServerToolBlock, TextBlock, ToolCallBlock

ServerTool = tuple[str, str | None, str | None, dict[str, Any]]
"""A server-tool item as both sides see it: wire type, id, status, the item whole."""


@dataclass
class Summary:
    text: str
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    input_tokens: int | None = None
    output_tokens: int | None = None
    stop: str | None = None
    """Normalized stop reason (stop | length | tool_use | content_filter | refusal | error)."""
    server_tools: list[ServerTool] = field(default_factory=list)
    """Built-in (server) tool items, in order; compared where the SDK's summary reads them."""


def ours(outcome: Outcome) -> Summary | None:
    """Our summary of an outcome; None when there is no message (an HTTP error)."""
    message = outcome.message or outcome.partial
    if message is None:
        return None
    return Summary(
        text="".join(b.text for b in message.content if isinstance(b, TextBlock)),
        tool_calls=[(b.name, b.arguments) for b in message.content if isinstance(b, ToolCallBlock)],
        input_tokens=None if message.usage is None else message.usage.input_tokens,
        output_tokens=None if message.usage is None else message.usage.output_tokens,
        stop=message.stop_reason,
        server_tools=[(b.name, b.id, b.status, b.data) for b in message.content if isinstance(b, ServerToolBlock)],
    )
