"""Gemini vocabulary: finish reasons, error status names and reasons, tool-choice modes."""

from __future__ import annotations

from conformance.model import ErrorKind, StopReason

DIALECT = "gemini"
"""The dialect name its server_tool blocks carry (Google's own tool work: code execution, server-side calls)."""

# `candidates[].finishReason` → stop reason. Function calls end with STOP (there is no
# tool-call reason); the reader turns STOP into `tool_use` when the message holds calls.
CALLS_END_WITH = frozenset({"STOP"})
"""The raw reason a message of tool calls ends with: Google documents STOP as the natural stop
point and has no tool-call reason (ai.google.dev/api/generate-content#FinishReason)."""

FINISH_REASONS: dict[str, StopReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "MODEL_ARMOR": "content_filter",  # Vertex: the answer was blocked by a Model Armor template
    "MALFORMED_FUNCTION_CALL": "error",
    "UNEXPECTED_TOOL_CALL": "error",
    "TOO_MANY_TOOL_CALLS": "error",
    "OTHER": "error",
    "LANGUAGE": "error",
    "NO_IMAGE": "error",
    "IMAGE_OTHER": "error",
    "FINISH_REASON_UNSPECIFIED": "error",
}
NUMERIC_FINISH_REASONS: dict[int, str] = {
    0: "FINISH_REASON_UNSPECIFIED",
    1: "STOP",
    2: "MAX_TOKENS",
    3: "SAFETY",
    4: "RECITATION",
}
"""`finishReason` sent as a number (a client asking `$alt=json;enum-encoding=int`): the values both
Google APIs number alike. Above 4 the Developer API and Vertex number differently (5 is LANGUAGE
in one and OTHER in the other), so a larger number is kept raw and counts as unknown."""
UNKNOWN_FINISH: StopReason = "error"
"""A finish reason this table does not know yet: the answer did not end normally."""

# `promptFeedback.blockReason` with no candidates: the prompt itself was blocked.
BLOCKED_PROMPT: StopReason = "content_filter"

# google.rpc status names (`error.status`) → kind.
STATUS_NAMES: dict[str, ErrorKind] = {
    "INVALID_ARGUMENT": "invalid_request",
    "FAILED_PRECONDITION": "invalid_request",
    "OUT_OF_RANGE": "invalid_request",
    "UNIMPLEMENTED": "invalid_request",
    "UNAUTHENTICATED": "auth",
    "PERMISSION_DENIED": "permission",
    "NOT_FOUND": "not_found",
    "RESOURCE_EXHAUSTED": "rate_limited",
    "ABORTED": "server",
    "INTERNAL": "server",
    "UNKNOWN": "server",
    "DATA_LOSS": "server",
    "UNAVAILABLE": "overloaded",
    "DEADLINE_EXCEEDED": "timeout",
    "CANCELLED": "timeout",
}

# `error.details[].reason` (google.rpc.ErrorInfo) → kind; wins over the status name
# (an invalid key is 400 INVALID_ARGUMENT with reason API_KEY_INVALID).
ERROR_REASONS: dict[str, ErrorKind] = {
    "API_KEY_INVALID": "auth",
    "API_KEY_EXPIRED": "auth",
    "ACCESS_TOKEN_EXPIRED": "auth",
    "API_KEY_SERVICE_BLOCKED": "permission",
    "SERVICE_DISABLED": "permission",
    "CONSUMER_SUSPENDED": "permission",
    "RATE_LIMIT_EXCEEDED": "rate_limited",
}

RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo"

# Canonical `tool_choice` words → `functionCallingConfig.mode`.
TOOL_CHOICE_MODES: dict[str, str] = {"auto": "AUTO", "none": "NONE", "required": "ANY", "any": "ANY"}
