"""OpenAI Responses vocabulary, as tables."""

from __future__ import annotations

from conformance.model import ErrorKind, StopReason

DIALECT = "openai_responses"
"""The dialect's name, as `server_tool` blocks carry it."""

INCOMPLETE_REASONS: dict[str, StopReason] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}
"""`incomplete_details.reason` of an `incomplete` response → stop reason (others: `length`)."""

STATUS_STOPS: dict[str, StopReason] = {
    "completed": "stop",
    "incomplete": "length",
    "failed": "error",
    "cancelled": "error",
}
"""Terminal `status` → stop reason; a `completed` response with function calls is `tool_use`.
`queued` and `in_progress` are not terminal: the message has no stop reason yet."""

ERROR_CODES: dict[str, ErrorKind] = {
    "server_error": "server",
    "rate_limit_exceeded": "rate_limited",
    "insufficient_quota": "rate_limited",
    "invalid_prompt": "content_filter",
    "context_length_exceeded": "context_overflow",
    "vector_store_timeout": "timeout",
    "invalid_image": "invalid_request",
    "invalid_image_format": "invalid_request",
    "invalid_base64_image": "invalid_request",
    "invalid_image_url": "invalid_request",
    "image_too_large": "payload_too_large",
    "image_too_small": "invalid_request",
    "image_parse_error": "invalid_request",
    "image_content_policy_violation": "content_filter",
    "invalid_image_mode": "invalid_request",
    "image_file_too_large": "payload_too_large",
    "unsupported_image_media_type": "invalid_request",
    "empty_image_file": "invalid_request",
    "failed_to_download_image": "invalid_request",
    "image_file_not_found": "not_found",
}
"""`response.error.code` (a failed response, `response.failed`) → kind, from the API reference's
list of codes; codes shared with Chat Completions are read by its table."""

BUILTIN_TOOL_ITEMS: frozenset[str] = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "computer_call",
        "local_shell_call",
        "shell_call",
        "shell_call_output",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "tool_search_call",
        "tool_search_output",
        "apply_patch_call",
        "compaction",
        "program",
        "program_output",
    }
)
"""Output items that record work the provider's own tools did (or ask the user's approval for it).
Each becomes a `server_tool` block holding the item whole, never a client tool call, and goes back
unchanged in `input` (the API needs some of them there, e.g. an item its reasoning led to).

`shell_call_output` is the output of a hosted shell (`environment: container_reference`) run by
the API in the same response; `program` / `program_output` are the code the model wrote under
programmatic tool calling and its result, run by the API (the function calls the program makes
are ordinary `function_call` items)."""


def is_builtin_item(kind: object) -> bool:
    """Whether an item's `type` names a built-in tool item (a `type` that is not a string, as
    hostile input may send, is none)."""
    return isinstance(kind, str) and kind in BUILTIN_TOOL_ITEMS
