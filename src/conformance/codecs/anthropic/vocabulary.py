"""Anthropic Messages vocabulary: the tables every module of this dialect reads."""

from __future__ import annotations

from typing import Any

from conformance.model import ErrorKind, StopReason

DIALECT = "anthropic"
"""The dialect's name, as `server_tool` blocks carry it."""

STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_use",
    "refusal": "refusal",
    "pause_turn": "stop",
    "model_context_window_exceeded": "length",
}
"""`stop_reason` → normalized; a value not listed keeps `raw_stop_reason` and has no `stop_reason`."""

ERROR_TYPES: dict[str, ErrorKind] = {
    "invalid_request_error": "invalid_request",
    "authentication_error": "auth",
    "billing_error": "permission",
    "permission_error": "permission",
    "not_found_error": "not_found",
    "request_too_large": "payload_too_large",
    "rate_limit_error": "rate_limited",
    "api_error": "server",
    "timeout_error": "timeout",
    "overloaded_error": "overloaded",
}
"""`error.type` of the error envelope (HTTP body or `event: error`) → kind."""

TOOL_CHOICES: dict[str, dict[str, Any]] = {
    "auto": {"type": "auto"},
    "none": {"type": "none"},
    "required": {"type": "any"},
    "any": {"type": "any"},
}
"""Canonical `tool_choice` words → wire object; any other word names a tool."""

PASSTHROUGH_OPTIONS: tuple[str, ...] = ("top_k", "metadata", "service_tier")
"""Extra `Options` keys sent to the wire unchanged (Anthropic request fields without a canonical
option); other unknown option keys are not Anthropic's and are not sent."""

END_EVENT = "message_stop"
"""The stream's terminal event; a stream without it was cut off."""

SERVER_BLOCKS: frozenset[str] = frozenset(
    {
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "advisor_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "compaction",
        "fallback",
    }
)
"""Content blocks of work the API did itself (its server tools, MCP connector calls, context
compaction, and `fallback`, where one model's output gives way to the next under server-side
fallback): each becomes a `server_tool` block holding the block whole, sent back unchanged.

`fallback` (anthropic SDK, `BetaFallbackBlock`): "The block is treated like a server-tool content
block for streaming: it arrives via the standard `content_block_start` / `content_block_stop` pair
and carries no deltas"; sent back, "keep this block in its original position"
(https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback)."""


def is_server_block(kind: object) -> bool:
    """Whether a content block's `type` names a server-side block (a `type` that is not a string,
    as hostile input may send, is none)."""
    return isinstance(kind, str) and kind in SERVER_BLOCKS


SERVER_DELTAS: dict[str, tuple[str, str]] = {
    "input_json_delta": ("partial_json", "input"),
    "compaction_delta": ("content", "content"),
}
"""Stream delta type of a server block → (its text field, the block field it builds): a
`server_tool_use` input arrives as JSON text, a compaction's summary as text."""
