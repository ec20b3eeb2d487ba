"""OpenAI Chat Completions vocabulary (and the gateways' additions), as tables."""

from __future__ import annotations

import re

from conformance.model import ErrorKind, StopReason

FINISH_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "end_turn": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "content_filter",
    "error": "error",
    # wordings of OpenAI-compatible servers (vLLM, TGI, compatibility layers), matched lowercased
    "eos": "stop",
    "eos_token": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_use",
    "model_length": "length",
    "safety": "content_filter",
    "recitation": "content_filter",
    "abort": "error",
}
"""`finish_reason` → stop reason. A value not listed is `tool_use` when the message has tool calls,
else `stop` (the response did finish); `raw_stop_reason` keeps the wire value either way."""

# OpenAI-style `error.code` / `error.type` → kind (checked in that order).
ERROR_CODES: dict[str, ErrorKind] = {
    "context_length_exceeded": "context_overflow",
    "string_above_max_length": "context_overflow",
    "too_many_prompt_tokens": "context_overflow",  # Perplexity: "The total length of all messages is too long."
    "invalid_api_key": "auth",
    "authentication_error": "auth",
    "invalid_request_error": "invalid_request",
    "unsupported_parameter": "invalid_request",
    "unsupported_value": "invalid_request",
    "invalid_function_call": "invalid_request",
    "tool_use_failed": "invalid_request",
    "rate_limit_exceeded": "rate_limited",
    "insufficient_quota": "rate_limited",
    "tokens": "rate_limited",
    "requests": "rate_limited",
    "model_not_found": "not_found",
    "invalid_model": "not_found",  # Mistral answers an unknown model with 400 invalid_model
    "permission_denied": "permission",
    "insufficient_permissions": "permission",
    "content_filter": "content_filter",  # Azure OpenAI: a prompt its content management blocks
    "engine_overloaded": "overloaded",
    "overloaded": "overloaded",
}

# OpenRouter `metadata.error_type` (2026 shape) → kind.
OPENROUTER_ERROR_TYPES: dict[str, ErrorKind] = {
    "context_length_exceeded": "context_overflow",
    "rate_limit_exceeded": "rate_limited",
    "provider_overloaded": "overloaded",
    "provider_unavailable": "server",
    "authentication": "auth",
    "payment_required": "permission",
    "invalid_request": "invalid_request",
    "server": "server",
    "timeout": "timeout",
    "moderation": "content_filter",
    "content_filter": "content_filter",
}

# Upstream error types found inside OpenRouter's legacy `metadata.raw` string (Anthropic, Google).
UPSTREAM_TYPES: dict[str, ErrorKind] = {
    "overloaded_error": "overloaded",
    "rate_limit_error": "rate_limited",
    "api_error": "server",
    "invalid_request_error": "invalid_request",
    "authentication_error": "auth",
    "permission_error": "permission",
    "not_found_error": "not_found",
    "RESOURCE_EXHAUSTED": "rate_limited",
    "UNAVAILABLE": "overloaded",
    "INTERNAL": "server",
    "INVALID_ARGUMENT": "invalid_request",
}

AUTH_MESSAGES = re.compile(r"incorrect api key provided|invalid api key|api key not valid", re.IGNORECASE)
"""Auth failures some gateways send as a 400 with a generic code (xAI: "Incorrect API key provided: …")."""
