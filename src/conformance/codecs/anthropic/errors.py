"""Anthropic errors → `ProviderError`: the HTTP error envelope and the stream's `event: error`.

Envelope: `{"type": "error", "error": {"type": "<error_type>", "message": "…"}, "request_id": "…"}`.
The kind comes from `error.type` (see `ERROR_TYPES`), falling back to the HTTP status; context
overflow is recognised from the message. Retry hints come from the headers; the
`anthropic-ratelimit-*-reset` timestamps are measured from the response's own `date` header, so
classification never reads the clock (without a `date` header only `retry-after[-ms]` count).
"""

from __future__ import annotations

from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any

import orjson

from conformance import jsonvalue
from conformance.capabilities import ProviderProfile
from conformance.codecs.anthropic.vocabulary import ERROR_TYPES
from conformance.codecs.base import header
from conformance.codecs.errorkit import kind_for_status, make_error, retry_after_from_headers
from conformance.model import ProviderError

_MESSAGE_LIMIT = 2000
"""Characters of a non-JSON body kept as the error message (e.g. an HTML page from a proxy)."""


def error_from_payload(payload: Any, *, status: int | None, retry_after_s: float | None = None) -> ProviderError:
    """An error envelope (already parsed) → `ProviderError`; `status` is None mid-stream."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        text = "" if payload is None else orjson.dumps(payload).decode()
        return make_error(
            kind_for_status(status), status=status, message=text[:_MESSAGE_LIMIT], retry_after_s=retry_after_s
        )
    code = error.get("type")
    code = code if isinstance(code, str) else None
    message = error.get("message")
    kind = ERROR_TYPES.get(code or "") or kind_for_status(status)
    return make_error(
        kind,
        status=status,
        message=message if isinstance(message, str) else "",
        provider_code=code,
        retry_after_s=retry_after_s,
    )


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait before retrying, measured from the response's `date` header."""
    date = header(headers, "date")
    when = None
    if date:
        try:
            when = parsedate_to_datetime(date)
        except (TypeError, ValueError):
            when = None
    if when is None:  # keep only the hints that need no reference time
        headers = {
            k: v
            for k, v in headers.items()
            if k.lower() == "retry-after-ms" or (k.lower() == "retry-after" and _is_number(v))
        }
    return retry_after_from_headers(headers, now=when)


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def classify(status: int, headers: Mapping[str, str], body: bytes, profile: ProviderProfile) -> ProviderError:
    """An HTTP error response → `ProviderError`."""
    del profile  # the vocabulary is the dialect's; no provider flag changes it
    wait = retry_after(headers)
    try:
        payload = jsonvalue.loads(body) if body.strip() else None
    except orjson.JSONDecodeError:
        text = body.decode("utf-8", errors="replace").strip()
        return make_error(kind_for_status(status), status=status, message=text[:_MESSAGE_LIMIT], retry_after_s=wait)
    return error_from_payload(payload, status=status, retry_after_s=wait)
