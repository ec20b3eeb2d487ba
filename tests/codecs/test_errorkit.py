"""The shared classification tables: one real wording per context-overflow pattern, and every
retry hint the providers send."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from conformance.codecs.errorkit import (
    CONTEXT_OVERFLOW_PATTERNS,
    is_context_overflow,
    make_error,
    parse_duration,
    redact,
    retry_after_from_headers,
)

# One message per pattern, as providers word it (wire reference and recorded error bodies).
OVERFLOW_MESSAGES = [
    "This model's maximum context length is 8192 tokens. However, your messages resulted in 11433 tokens.",  # OpenAI, DeepSeek, Groq
    "context_length_exceeded",  # OpenRouter error_type / OpenAI code surfaced as text
    "Your input exceeds the context window of this model. Please adjust your input and try again.",  # OpenAI Responses
    "prompt is too long: 209353 tokens > 199999 maximum",  # Anthropic
    "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again",  # Anthropic
    "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",  # Gemini
    "Prompt contains 140000 tokens, too large for model with 131072 maximum context length",  # Mistral
    "This model's maximum prompt length is 131072 but the request contains 140321 tokens.",  # xAI
    "Prompt too long; exceeded max context length by 2048 tokens",  # xAI
    "input length 9000 exceeds the maximum context length of 8192",  # Ollama / llama.cpp
    "requested 140000 tokens but the context window is 131072",  # OpenAI-compatible gateways
    "The prompt is too long: 262960, model maximum context length: 262144",  # Fireworks, Ollama cloud models
]


def test_every_pattern_has_a_real_message() -> None:
    for pattern in CONTEXT_OVERFLOW_PATTERNS:
        assert any(pattern.search(m) for m in OVERFLOW_MESSAGES), pattern.pattern


@pytest.mark.parametrize("message", OVERFLOW_MESSAGES)
def test_context_overflow_messages(message: str) -> None:
    assert is_context_overflow(message)
    assert make_error("invalid_request", status=400, message=message).kind == "context_overflow"


@pytest.mark.parametrize("message", ["Invalid value for temperature", "rate limit reached", ""])
def test_other_messages_are_not_overflow(message: str) -> None:
    assert not is_context_overflow(message)


NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "30"}, 30.0),
        ({"retry-after": "Sun, 22 Nov 2026 12:00:45 GMT"}, 45.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"x-ratelimit-reset-requests": "6m0s", "x-ratelimit-reset-tokens": "12ms"}, 360.0),
        ({"anthropic-ratelimit-requests-reset": "2026-11-22T12:00:20Z"}, 20.0),
        ({"content-type": "application/json"}, None),
    ],
)
def test_retry_hints(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after_from_headers(headers, now=NOW) == seconds


def test_durations() -> None:
    assert [parse_duration(v) for v in ("34.4s", "6m0s", "1h", "12ms", "abc", "")] == [
        34.4,
        360.0,
        3600.0,
        0.012,
        None,
        None,
    ]


def test_redaction() -> None:
    text = "Incorrect API key provided: sk-proj-abcdefgh12345678. Also AIzaSyD4x9k2L0q8W7e6R5t4Y3u2I1o0P9a8S7d and Bearer abc.def.ghi12345"
    out = redact(text)
    assert "sk-proj-abcdefgh" not in out and "AIza" not in out and "abc.def.ghi" not in out
    assert out.count("<redacted>") == 3


def test_a_413_is_the_size_limit_whatever_the_type_says() -> None:
    assert make_error("invalid_request", status=413, message="Request too large").kind == "payload_too_large"
    assert make_error("invalid_request", status=400, message="Request too large").kind == "invalid_request"
