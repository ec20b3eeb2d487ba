"""Gemini error classification (§4.6): envelope, status names, ErrorInfo reasons, RetryInfo."""

from __future__ import annotations

import pytest

from conformance.codecs.gemini import classify
from tests.codecs.gemini.helpers import PROFILE, outcome

API_KEY_INVALID = b"""{
  "error": {
    "code": 400,
    "message": "API key not valid. Please pass a valid API key.",
    "status": "INVALID_ARGUMENT",
    "details": [
      {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
       "domain": "googleapis.com", "metadata": {"service": "generativelanguage.googleapis.com"}}
    ]
  }
}"""

QUOTA = b"""{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED",
 "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure",
             "violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},
            {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34.4s"}]}}"""


def test_invalid_key_is_auth_although_the_status_is_400() -> None:
    error = classify(400, {}, API_KEY_INVALID, PROFILE)
    assert (error.kind, error.status, error.provider_code) == ("auth", 400, "API_KEY_INVALID")
    assert error.message == "API key not valid. Please pass a valid API key."


def test_quota_with_retry_info_in_the_body() -> None:
    error = classify(429, {}, QUOTA, PROFILE)
    assert (error.kind, error.retry_after_s, error.provider_code) == (
        "rate_limited",
        34.4,
        "RESOURCE_EXHAUSTED",
    )


def test_array_wrapped_envelope() -> None:
    body = b'[{"error":{"code":404,"message":"models/nope is not found","status":"NOT_FOUND"}}]'
    error = classify(404, {}, body, PROFILE)
    assert (error.kind, error.message) == ("not_found", "models/nope is not found")


@pytest.mark.parametrize(
    ("code", "status", "kind"),
    [
        (400, "INVALID_ARGUMENT", "invalid_request"),
        (400, "FAILED_PRECONDITION", "invalid_request"),
        (403, "PERMISSION_DENIED", "permission"),
        (404, "NOT_FOUND", "not_found"),
        (429, "RESOURCE_EXHAUSTED", "rate_limited"),
        (500, "INTERNAL", "server"),
        (503, "UNAVAILABLE", "overloaded"),
        (504, "DEADLINE_EXCEEDED", "timeout"),
    ],
)
def test_status_name_table(code: int, status: str, kind: str) -> None:
    body = b'{"error":{"code":%d,"message":"m","status":"%s"}}' % (code, status.encode())
    error = classify(code, {}, body, PROFILE)
    assert (error.kind, error.status, error.provider_code) == (kind, code, status)


def test_status_name_wins_over_http_status() -> None:
    # A proxy answering 500 with a body that says the request was invalid: the body decides.
    body = b'{"error":{"code":400,"message":"Please use a valid role: user, model.","status":"INVALID_ARGUMENT"}}'
    assert classify(500, {}, body, PROFILE).kind == "invalid_request"


def test_token_limit_message_is_context_overflow() -> None:
    body = (
        b'{"error":{"code":400,"status":"INVALID_ARGUMENT","message":'
        b'"The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)."}}'
    )
    error = classify(400, {}, body, PROFILE)
    assert error.kind == "context_overflow"


def test_non_json_body_falls_back_to_the_http_status() -> None:
    error = classify(502, {}, b"<html>Bad Gateway</html>", PROFILE)
    assert (error.kind, error.status, error.message) == ("server", 502, "<html>Bad Gateway</html>")


def test_retry_after_header_when_the_body_has_no_hint() -> None:
    body = b'{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}'
    error = classify(503, {"Retry-After": "7"}, body, PROFILE)
    assert (error.kind, error.retry_after_s) == ("overloaded", 7.0)


def test_http_error_through_decode_response() -> None:
    result = outcome(400, API_KEY_INVALID, stream=True, headers={"content-type": "text/event-stream"})
    assert result.error is not None
    assert result.error.kind == "auth"
    assert result.partial is None
