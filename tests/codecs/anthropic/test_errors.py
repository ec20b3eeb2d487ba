"""HTTP error classification (reference section 3.5)."""

from __future__ import annotations

import pytest

from conformance.codecs.anthropic import CODEC, classify
from conformance.codecs.base import decode_response
from tests.codecs.anthropic.helpers import PROFILE


def envelope(error_type: str, message: str) -> bytes:
    return (
        f'{{"type":"error","error":{{"type":"{error_type}","message":"{message}"}},"request_id":"req_011"}}'
    ).encode()


@pytest.mark.parametrize(
    ("status", "error_type", "kind"),
    [
        (400, "invalid_request_error", "invalid_request"),
        (401, "authentication_error", "auth"),
        (402, "billing_error", "permission"),
        (403, "permission_error", "permission"),
        (404, "not_found_error", "not_found"),
        (413, "request_too_large", "payload_too_large"),
        (429, "rate_limit_error", "rate_limited"),
        (500, "api_error", "server"),
        (504, "timeout_error", "timeout"),
        (529, "overloaded_error", "overloaded"),
    ],
)
def test_error_type_table(status: int, error_type: str, kind: str) -> None:
    error = classify(status, {}, envelope(error_type, "msg"), PROFILE)
    assert (error.kind, error.status, error.provider_code, error.message) == (kind, status, error_type, "msg")


def test_error_type_wins_over_status() -> None:
    assert classify(500, {}, envelope("overloaded_error", "Overloaded"), PROFILE).kind == "overloaded"


def test_unknown_error_type_falls_back_to_status() -> None:
    error = classify(503, {}, envelope("new_error", "x"), PROFILE)
    assert (error.kind, error.provider_code) == ("overloaded", "new_error")


@pytest.mark.parametrize(
    "message",
    [
        "prompt is too long: 209353 tokens > 199999 maximum",
        "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, "
        "decrease input length or `max_tokens` and try again",
    ],
)
def test_context_overflow(message: str) -> None:
    assert classify(400, {}, envelope("invalid_request_error", message), PROFILE).kind == "context_overflow"


def test_retry_after_seconds() -> None:
    error = classify(429, {"Retry-After": "30"}, envelope("rate_limit_error", "slow"), PROFILE)
    assert error.retry_after_s == 30.0


def test_retry_after_ms_wins() -> None:
    headers = {"retry-after-ms": "1500", "retry-after": "30"}
    assert classify(429, headers, envelope("rate_limit_error", "slow"), PROFILE).retry_after_s == 1.5


def test_ratelimit_reset_is_measured_from_the_date_header() -> None:
    headers = {
        "date": "Thu, 02 Apr 2026 11:23:11 GMT",
        "anthropic-ratelimit-requests-reset": "2026-04-02T11:23:41Z",
        "anthropic-ratelimit-tokens-reset": "2026-04-02T11:23:21Z",
    }
    assert classify(429, headers, envelope("rate_limit_error", "slow"), PROFILE).retry_after_s == 30.0


def test_ratelimit_reset_without_a_date_header_gives_no_hint() -> None:
    headers = {"anthropic-ratelimit-requests-reset": "2026-04-02T11:23:41Z"}
    assert classify(429, headers, envelope("rate_limit_error", "slow"), PROFILE).retry_after_s is None


def test_529_overloaded_through_decode_response() -> None:
    outcome = decode_response(CODEC, PROFILE, 529, {}, envelope("overloaded_error", "Overloaded"))
    assert outcome.error is not None
    assert (outcome.error.kind, outcome.error.status) == ("overloaded", 529)
    assert outcome.partial is None


def test_non_json_body_uses_the_status_and_keeps_the_text() -> None:
    body = b"<html><body>413 Request Entity Too Large</body></html>"
    error = classify(413, {"content-type": "text/html"}, body, PROFILE)
    assert (error.kind, error.provider_code) == ("payload_too_large", None)
    assert "413 Request Entity Too Large" in error.message


def test_empty_body() -> None:
    error = classify(502, {}, b"", PROFILE)
    assert (error.kind, error.message) == ("server", "")


def test_keys_in_messages_are_redacted() -> None:
    error = classify(401, {}, envelope("authentication_error", "invalid key sk-ant-api03-abcdefghijkl"), PROFILE)
    assert "abcdefghijkl" not in error.message
