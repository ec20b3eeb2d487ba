"""Non-streaming bodies and every error envelope of the dialect."""

from __future__ import annotations

import orjson
import pytest

from conformance.capabilities import get_profile
from conformance.codecs.openai_chat import classify
from conformance.model import TextBlock, ThinkingBlock, ToolCallBlock
from tests.codecs.openai_chat.helpers import decode_json


def test_tool_call_message() -> None:
    body = {
        "id": "chatcmpl-1",
        "model": "gpt-4.1-mini-2025-04-14",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": None,
                    "tool_calls": [
                        {"id": "call_x", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 44, "completion_tokens": 16, "completion_tokens_details": {"reasoning_tokens": 3}},
    }
    out = decode_json(body)
    assert out.message is not None
    assert out.message.content == [ToolCallBlock(id="call_x", name="f", arguments={"a": 1})]
    assert out.message.stop_reason == "tool_use" and out.message.model == "gpt-4.1-mini-2025-04-14"
    assert out.message.usage is not None and out.message.usage.reasoning_tokens == 3


def test_reasoning_and_deepseek_cache_hits() -> None:
    body = {
        "choices": [{"finish_reason": "stop", "message": {"reasoning_content": "R", "content": "A"}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 9, "prompt_cache_hit_tokens": 64},
    }
    out = decode_json(body, "deepseek")
    assert out.message is not None and out.message.usage is not None
    assert out.message.content == [ThinkingBlock(thinking="R"), TextBlock(text="A")]
    assert out.message.usage.cache_read_tokens == 64


def test_error_inside_a_200_body() -> None:
    out = decode_json(
        {
            "code": "Client specified an invalid argument",
            "error": "Incorrect API key provided: xai-ABCDEFGHIJKLMNOPQRST",
        },
        "xai",
    )
    assert out.error is not None and out.error.provider_code == "Client specified an invalid argument"
    assert "xai-ABCD" not in out.error.message and "<redacted>" in out.error.message


H = {"content-type": "application/json"}


def classify_body(status: int, body: object, provider: str = "openai", headers: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
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
