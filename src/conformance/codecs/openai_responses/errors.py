"""Error envelopes of the Responses API → `ProviderError`.

- An HTTP error has the Chat Completions envelope `{"error": {"message", "type", "param", "code"}}`
  (read by the same parser, `openai_chat.errors`);
- a failed response (`status: "failed"`, in a JSON body or `response.failed`) has
  `response.error = {"code", "message"}`;
- an `error` stream event is `{"type": "error", "code", "message", "param"}` (the API reference)
  or nests the envelope: `{"type": "error", "error": {"type", "code", "message", "param"}}` (as
  recorded); both are read.

Response-level codes (`server_error`, `invalid_prompt`, image codes) come from `ERROR_CODES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.errorkit import make_error
from conformance.codecs.openai_chat.errors import classify as classify_chat
from conformance.codecs.openai_chat.errors import error_from_payload
from conformance.codecs.openai_responses.tables import ERROR_CODES
from conformance.model import ProviderError


def _refine(error: ProviderError, code: str | None) -> ProviderError:
    kind = ERROR_CODES.get(code or "")
    if kind is None or kind == error.kind:
        return error
    return make_error(
        kind,
        status=error.status,
        message=error.message or "",
        provider_code=error.provider_code,
        retry_after_s=error.retry_after_s,
    )


def event_error(data: dict[str, Any]) -> ProviderError:
    """An `error` stream event, in either shape."""
    nested = data.get("error")
    envelope = nested if isinstance(nested, dict) else {k: v for k, v in data.items() if k != "type"}
    code = envelope.get("code")
    return _refine(error_from_payload({"error": envelope}, status=None), code if isinstance(code, str) else None)


def response_error(response: dict[str, Any]) -> ProviderError:
    """The error of a failed response (`response.error`; a generic server error when null)."""
    error = response.get("error")
    envelope = error if isinstance(error, dict) else {"message": "the response failed", "code": "server_error"}
    code = envelope.get("code")
    return _refine(error_from_payload({"error": envelope}, status=None), code if isinstance(code, str) else None)


def classify(status: int, headers: Mapping[str, str], body: bytes, profile: ProviderProfile) -> ProviderError:
    error = classify_chat(status, headers, body, profile)
    if error.provider_code == "server_error":
        return error  # the HTTP status says more (503 overloaded, 500 server)
    return _refine(error, error.provider_code)
