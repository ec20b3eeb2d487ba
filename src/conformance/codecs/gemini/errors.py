"""Gemini error envelopes → `ProviderError`.

`{"error": {"code", "message", "status", "details"}}`, sometimes wrapped in a JSON array. The
kind comes from, in order: an `ErrorInfo` reason in `details` (or `errors[].reason`), the
google.rpc status name, the HTTP status. A `RetryInfo.retryDelay` in the body is the retry hint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from conformance import jsonvalue
from conformance.capabilities import ProviderProfile
from conformance.codecs.errorkit import kind_for_status, make_error, parse_duration, retry_after_from_headers
from conformance.codecs.gemini.tables import ERROR_REASONS, RETRY_INFO_TYPE, STATUS_NAMES
from conformance.model import ErrorKind, ProviderError

_MAX_MESSAGE = 500


def _envelope(data: Any) -> dict[str, Any] | None:
    """The `error` object of a body, accepting the array-wrapped form."""
    if isinstance(data, list) and data:
        data = data[0]
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, dict) else None


def _reasons(error: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key in ("details", "errors"):
        items = error.get(key)
        if isinstance(items, list):
            out.extend(d["reason"] for d in items if isinstance(d, dict) and isinstance(d.get("reason"), str))
    return out


def _retry_delay(error: dict[str, Any]) -> float | None:
    details = error.get("details")
    if not isinstance(details, list):
        return None
    for detail in details:
        if isinstance(detail, dict) and detail.get("@type") == RETRY_INFO_TYPE:
            delay = detail.get("retryDelay")
            if isinstance(delay, str):
                return parse_duration(delay)
    return None


def error_from_object(
    error: dict[str, Any], *, status: int | None, headers: Mapping[str, str] | None = None
) -> ProviderError:
    """One `error` object (HTTP error body or mid-stream payload) → `ProviderError`."""
    code = error.get("code") if isinstance(error.get("code"), int) else None
    if status is None or status < 400:
        status = code
    status_name = error.get("status") if isinstance(error.get("status"), str) else None
    reasons = _reasons(error)
    kind: ErrorKind | None = next((ERROR_REASONS[r] for r in reasons if r in ERROR_REASONS), None)
    if kind is None and status_name is not None:
        kind = STATUS_NAMES.get(status_name)
    if kind is None:
        kind = kind_for_status(status)
    retry = _retry_delay(error)
    if retry is None and headers:
        retry = retry_after_from_headers(headers)
    message = error.get("message")
    return make_error(
        kind,
        status=status,
        message=message if isinstance(message, str) else "",
        provider_code=next((r for r in reasons if r in ERROR_REASONS), status_name),
        retry_after_s=retry,
    )


def error_from_payload(payload: Any, *, status: int | None = None) -> ProviderError | None:
    """The error carried by a decoded JSON value (e.g. inside a 200 stream), if it is one."""
    error = _envelope(payload)
    return None if error is None else error_from_object(error, status=status)


def classify(status: int, headers: Mapping[str, str], body: bytes, profile: ProviderProfile) -> ProviderError:
    del profile  # one Gemini vocabulary for every profile of this dialect
    try:
        data = jsonvalue.loads(body) if body.strip() else None
    except orjson.JSONDecodeError:
        data = None
    error = _envelope(data)
    if error is not None:
        return error_from_object(error, status=status, headers=headers)
    text = body.decode("utf-8", errors="replace").strip()[:_MAX_MESSAGE]
    return make_error(
        kind_for_status(status), status=status, message=text, retry_after_s=retry_after_from_headers(headers)
    )
