"""Error envelopes of OpenAI and the OpenAI-compatible gateways → `ProviderError`.

One tolerant parser reads every shape, since they do not conflict:

- OpenAI `{"error": {"message", "type", "param", "code"}}` (also inside a 200 stream);
- OpenRouter `{"error": {"code": <int>, "message", "metadata": {...}}}`, with the legacy
  `metadata.raw` (the upstream body as a string, parsed when it is JSON) / `provider_name` and the
  newer `metadata.error_type` / `provider_code`;
- Mistral's flat `{"object": "error", "message", "type", "param", "code"}`, and its 401 `{"detail"}`;
- Fireworks' `{"error": "<string>"}` and xAI's `{"code": "...", "error": "..."}`;
- Groq's `{"error": {..., "status_code": 400}}` in an `event: error` frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from conformance import jsonvalue
from conformance.capabilities import ProviderProfile
from conformance.codecs.errorkit import is_context_overflow, kind_for_status, make_error, retry_after_from_headers
from conformance.codecs.openai_chat.tables import AUTH_MESSAGES, ERROR_CODES, OPENROUTER_ERROR_TYPES, UPSTREAM_TYPES
from conformance.model import ErrorKind, ProviderError

_MESSAGE_LIMIT = 2000


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _upstream_kind(raw: str) -> tuple[ErrorKind | None, str | None]:
    """The kind named by an upstream body kept as a string (OpenRouter legacy `metadata.raw`):
    Anthropic / OpenAI `error.type` or `code`, Google `error.status` (the body may be wrapped in a
    list), a flat envelope (Mistral), or a context-window wording anywhere in the text."""
    try:
        body = jsonvalue.loads(raw)
    except orjson.JSONDecodeError:
        body = None
    if isinstance(body, list) and body:
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        error = body if isinstance(body, dict) else {}
    for key in ("type", "status", "code"):
        code = _str(error.get(key))
        if code and code in UPSTREAM_TYPES:
            return UPSTREAM_TYPES[code], code
        if code and code in ERROR_CODES:
            return ERROR_CODES[code], code
    if is_context_overflow(raw):
        return "context_overflow", None
    return None, None


def error_from_payload(payload: Any, *, status: int | None, retry_after_s: float | None = None) -> ProviderError:
    """Any of the envelopes above, already parsed; `status` is None inside a 200 stream."""
    if not isinstance(payload, dict):
        text = payload if isinstance(payload, str) else orjson.dumps(payload).decode()
        return make_error(
            kind_for_status(status), status=status, message=text[:_MESSAGE_LIMIT], retry_after_s=retry_after_s
        )
    error = payload.get("error")
    if isinstance(error, str):  # Fireworks / xAI
        flat_code = _str(payload.get("code"))
        flat_kind = "auth" if AUTH_MESSAGES.search(error) else ERROR_CODES.get(flat_code or "")
        return make_error(
            flat_kind or kind_for_status(status),
            status=status,
            message=error,
            provider_code=flat_code,
            retry_after_s=retry_after_s,
        )
    if not isinstance(error, dict):
        error = payload  # Mistral's flat envelope
    message = _str(error.get("message")) or _str(error.get("detail")) or ""
    code_value = error.get("code")
    code = str(code_value) if isinstance(code_value, int | str) and code_value != "" else None
    etype = _str(error.get("type"))
    if status is None and isinstance(error.get("status_code"), int):
        status = error["status_code"]
    kind: ErrorKind | None = ERROR_CODES.get(code or "") or ERROR_CODES.get(etype or "")
    provider_code = code if code and not code.isdigit() else etype or code
    metadata = error.get("metadata")
    if isinstance(metadata, dict):
        error_type = _str(metadata.get("error_type"))
        if error_type:
            kind = OPENROUTER_ERROR_TYPES.get(error_type, kind)
            provider_code = _str(metadata.get("provider_code")) or error_type
        raw = _str(metadata.get("raw"))
        if raw:
            upstream_kind, upstream_code = _upstream_kind(raw)
            kind = upstream_kind or kind
            provider_code = upstream_code or provider_code or "provider_error"
            if raw == "ERROR":
                provider_code = "provider_rejected"
    if isinstance(code_value, int) and status is None:
        status = code_value  # OpenRouter puts the HTTP status in `code`
    if kind in (None, "invalid_request") and AUTH_MESSAGES.search(message):
        kind = "auth"
    if kind in (None, "invalid_request") and status is not None and status != 400:
        kind = kind_for_status(status)  # a generic "invalid request" type on a 401/404/429… says less than the status
    return make_error(
        kind or kind_for_status(status),
        status=status,
        message=message,
        provider_code=provider_code,
        retry_after_s=retry_after_s,
    )


def classify(status: int, headers: Mapping[str, str], body: bytes, profile: ProviderProfile) -> ProviderError:
    retry = retry_after_from_headers(headers)
    try:
        payload: Any = jsonvalue.loads(body.strip() or b"null")
    except orjson.JSONDecodeError:
        payload = body.decode("utf-8", errors="replace")[:_MESSAGE_LIMIT]
    if payload is None:
        return make_error(kind_for_status(status), status=status, retry_after_s=retry)
    return error_from_payload(payload, status=status, retry_after_s=retry)
