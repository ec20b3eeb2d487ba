"""Every error envelope of the dialect and its gateways (wire reference 1.5 and 6) → `ProviderError`."""

from __future__ import annotations

import orjson
import pytest

from conformance.capabilities import get_profile
from conformance.codecs.openai_chat import classify
from conformance.model import ProviderError

H = {"content-type": "application/json"}


def classify_body(
    status: int, body: object, provider: str = "openai", headers: dict[str, str] | None = None
) -> ProviderError:
    return classify(status, headers or H, orjson.dumps(body), get_profile(provider))


@pytest.mark.parametrize(
    ("status", "body", "provider", "kind", "code"),
    [
        (
            400,
            {
                "error": {
                    "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 11433 tokens.",
                    "type": "invalid_request_error",
                    "param": "messages",
                    "code": "context_length_exceeded",
                }
            },
            "openai",
            "context_overflow",
            "context_length_exceeded",
        ),
        (
            401,
            {
                "error": {
                    "message": "Incorrect API key provided: sk-proj-abcdefghijklmnop.",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
            "openai",
            "auth",
            "invalid_api_key",
        ),
        (
            429,
            {
                "error": {
                    "message": "You exceeded your current quota",
                    "type": "insufficient_quota",
                    "code": "insufficient_quota",
                }
            },
            "openai",
            "rate_limited",
            "insufficient_quota",
        ),
        (
            503,
            {"error": {"message": "The engine is currently overloaded", "type": "server_error", "code": None}},
            "openai",
            "overloaded",
            "server_error",
        ),
        (
            400,
            {
                "error": {
                    "code": 400,
                    "message": "Provider returned error",
                    "metadata": {
                        "provider_name": "Anthropic",
                        "raw": '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
                    },
                }
            },
            "openrouter",
            "overloaded",
            "overloaded_error",
        ),
        (
            400,
            {
                "error": {
                    "code": 400,
                    "message": "Provider returned error",
                    "metadata": {"provider_name": "Google", "raw": "ERROR"},
                }
            },
            "openrouter",
            "invalid_request",
            "provider_rejected",
        ),
        (
            429,
            {
                "error": {
                    "code": 429,
                    "message": "Rate limited upstream",
                    "metadata": {"error_type": "rate_limit_exceeded", "provider_code": "429"},
                }
            },
            "openrouter",
            "rate_limited",
            "429",
        ),
        (
            400,
            {
                "object": "error",
                "message": "Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.",
                "type": "invalid_function_call",
                "param": None,
                "code": "3280",
            },
            "mistral",
            "invalid_request",
            "invalid_function_call",
        ),
        (500, {"error": "internal error"}, "fireworks", "server", None),
        (
            503,
            {"error": {"message": "Server overloaded, please try again later.", "type": "service_unavailable_error"}},
            "deepseek",
            "overloaded",
            "service_unavailable_error",
        ),
    ],
)
def test_envelopes(status: int, body: object, provider: str, kind: str, code: str | None) -> None:
    error = classify_body(status, body, provider)
    assert (error.kind, error.provider_code, error.status) == (kind, code, status)
    assert "sk-proj-abcdefghijklmnop" not in error.message


def test_mistral_detail_body_is_the_message() -> None:
    """Mistral answers a bad key with 401 `{"detail": "Invalid API Key"}` (a recorded call)."""
    error = classify_body(401, {"detail": "Invalid API Key"}, "mistral")
    assert (error.kind, error.message) == ("auth", "Invalid API Key")


def test_retry_after_header() -> None:
    error = classify_body(
        429, {"error": {"message": "slow down", "code": "rate_limit_exceeded"}}, headers={"retry-after": "30"}
    )
    assert (error.kind, error.retry_after_s) == ("rate_limited", 30.0)


def test_body_that_is_not_json() -> None:
    error = classify(502, {"content-type": "text/html"}, b"<html>Bad gateway</html>", get_profile("openai"))
    assert (error.kind, error.status) == ("server", 502)
    assert "Bad gateway" in error.message


@pytest.mark.parametrize(
    ("status", "kind"), [(401, "auth"), (404, "not_found"), (400, "invalid_request"), (422, "invalid_request")]
)
def test_the_status_wins_over_a_generic_invalid_request_code(status: int, kind: str) -> None:
    body = {"error": {"message": "x", "type": "invalid_request_error", "code": "invalid_request_error"}}
    assert classify_body(status, body, "deepseek").kind == kind


def test_xai_reports_a_bad_key_as_400() -> None:
    body = {
        "code": "Client specified an invalid argument",
        "error": "Incorrect API key provided: xa***bc. You can obtain an API key from https://console.x.ai.",
    }
    error = classify_body(400, body, "xai")
    assert (error.kind, error.status) == ("auth", 400)


@pytest.mark.parametrize(
    ("status", "body", "provider", "kind", "code"),
    [
        # OpenRouter 402: insufficient credits is a billing refusal
        (402, {"error": {"code": 402, "message": "Insufficient credits"}}, "openrouter", "permission", "402"),
        # DeepSeek 402: insufficient balance
        (
            402,
            {"error": {"message": "Insufficient Balance", "type": "unknown_error", "code": "invalid_request_error"}},
            "deepseek",
            "permission",
            "invalid_request_error",
        ),
        # OpenRouter's current metadata.error_type vocabulary
        (
            402,
            {"error": {"code": 402, "message": "x", "metadata": {"error_type": "payment_required"}}},
            "openrouter",
            "permission",
            "payment_required",
        ),
        (
            400,
            {
                "error": {
                    "code": 400,
                    "message": "too long",
                    "metadata": {"error_type": "context_length_exceeded", "provider_code": "prompt_too_long"},
                }
            },
            "openrouter",
            "context_overflow",
            "prompt_too_long",
        ),
        (
            503,
            {"error": {"code": 503, "message": "busy", "metadata": {"error_type": "provider_overloaded"}}},
            "openrouter",
            "overloaded",
            "provider_overloaded",
        ),
        # OpenRouter legacy metadata.raw holding a Google body (array-wrapped) and a context wording
        (
            429,
            {
                "error": {
                    "code": 429,
                    "message": "Provider returned error",
                    "metadata": {
                        "provider_name": "Google AI Studio",
                        "raw": '[{"error": {"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED"}}]',
                    },
                }
            },
            "openrouter",
            "rate_limited",
            "RESOURCE_EXHAUSTED",
        ),
        (
            400,
            {
                "error": {
                    "code": 400,
                    "message": "Provider returned error",
                    "metadata": {
                        "provider_name": "DeepInfra",
                        "raw": "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens",
                    },
                }
            },
            "openrouter",
            "context_overflow",
            "400",  # OpenRouter's own code: the upstream text names no type
        ),
        # Groq tool-generation failure
        (
            400,
            {
                "error": {
                    "message": "Failed to call a function. Please adjust your prompt.",
                    "type": "invalid_request_error",
                    "code": "tool_use_failed",
                    "failed_generation": "<function=f>",
                }
            },
            "groq",
            "invalid_request",
            "tool_use_failed",
        ),
        # Mistral: an unknown model is a 400 invalid_model
        (
            400,
            {"object": "error", "message": "Invalid model: x", "type": "invalid_model", "param": None, "code": "1500"},
            "mistral",
            "not_found",
            "invalid_model",
        ),
        # Perplexity {error: {message, type, code: <HTTP status>}}: messages too long, a bad key, an unknown model
        (
            400,
            {
                "error": {
                    "message": "The total length of all messages is too long.",
                    "type": "too_many_prompt_tokens",
                    "code": 400,
                }
            },
            "perplexity",
            "context_overflow",
            "too_many_prompt_tokens",
        ),
        (
            401,
            {"error": {"message": "Invalid API key provided.", "type": "invalid_api_key", "code": 401}},
            "perplexity",
            "auth",
            "invalid_api_key",
        ),
        (
            400,
            {"error": {"message": "Invalid model 'x'.", "type": "invalid_model", "code": 400}},
            "perplexity",
            "not_found",
            "invalid_model",
        ),
        # xAI {code, error}; Fireworks {error: {object}} and a string
        (
            429,
            {"code": "Some resource has been exhausted", "error": "Too many requests"},
            "xai",
            "rate_limited",
            "Some resource has been exhausted",
        ),
        (
            404,
            {"error": {"object": "error", "type": "invalid_request_error", "message": "Model not found"}},
            "fireworks",
            "not_found",
            "invalid_request_error",
        ),
        (401, {"error": "unauthorized"}, "fireworks", "auth", None),
        (
            413,
            {"error": {"message": "Request too large", "type": "invalid_request_error"}},
            "openai",
            "payload_too_large",
            "invalid_request_error",
        ),
    ],
)
def test_gateway_envelopes(status: int, body: object, provider: str, kind: str, code: str | None) -> None:
    error = classify_body(status, body, provider)
    assert (error.kind, error.provider_code, error.status) == (kind, code, status)


def test_retry_after_ms_wins_and_rate_limit_reset_durations() -> None:
    body = {"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}
    assert classify_body(429, body, headers={"retry-after-ms": "1500", "retry-after": "9"}).retry_after_s == 1.5
    assert classify_body(429, body, headers={"x-ratelimit-reset-tokens": "6m0s"}).retry_after_s == 360.0


def test_an_empty_body_is_classified_by_status() -> None:
    error = classify(503, {}, b"", get_profile("deepseek"))
    assert (error.kind, error.status, error.provider_code) == ("overloaded", 503, None)
