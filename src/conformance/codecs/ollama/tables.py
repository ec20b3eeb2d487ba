"""Ollama vocabulary: done reasons and error-message patterns."""

from __future__ import annotations

import re

from conformance.model import ErrorKind, StopReason

# `done_reason` → stop reason. A tool-call turn ends with `stop`; the reader turns it into
# `tool_use` when the message holds calls. `load`/`unload` answer model load/unload requests.
CALLS_END_WITH = frozenset({"stop"})
"""The raw reason a message of tool calls ends with: a chat answer holding `tool_calls` has
`done_reason: "stop"` (github.com/ollama/ollama docs/api.md, chat request with tools)."""

DONE_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "load": "stop",
    "unload": "stop",
}
UNKNOWN_DONE: StopReason = "error"
DONE_WITHOUT_REASON: StopReason = "stop"
"""Older servers send `done: true` with no `done_reason`."""

# Error messages (a plain string) → kind, first match wins; the HTTP status decides otherwise.
MODEL_NOT_FOUND = re.compile(r"model ['\"](?P<model>[^'\"]+)['\"] not found", re.IGNORECASE)
MESSAGE_KINDS: tuple[tuple[re.Pattern[str], ErrorKind], ...] = (
    (MODEL_NOT_FOUND, "not_found"),
    (re.compile(r"does not support (tools|thinking|insert|vision|images)", re.IGNORECASE), "invalid_request"),
    (re.compile(r"^unauthorized$", re.IGNORECASE), "auth"),
    (re.compile(r"server busy|maximum pending requests", re.IGNORECASE), "overloaded"),
)

MIDSTREAM_ERROR_KIND: ErrorKind = "server"
"""An `{"error"}` line inside a 200 stream that no pattern recognises."""
