"""Which recorded calls are generation calls of a dialect (`conformance.codecs.endpoints`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.codecs.endpoints import skip_reason


@pytest.mark.parametrize(
    ("dialect", "uri"),
    [
        ("openai_chat", "https://api.openai.com/v1/chat/completions"),
        ("openai_chat", "https://example.snowflakecomputing.com/api/v2/cortex/v1/chat/completions"),
        ("anthropic", "https://api.anthropic.com/v1/messages"),
        (
            "gemini",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        ),
        (
            "gemini",
            "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/p/locations/us-central1/publishers/google/"
            "models/gemini-2.5-flash:generateContent?%24alt=json%3Benum-encoding%3Dint",
        ),
        ("ollama", "http://localhost:11434/api/chat"),
        ("openai_chat", ""),  # a hand-written cassette without a URI is decoded
    ],
)
def test_generation_calls_are_decoded(dialect: str, uri: str) -> None:
    assert skip_reason(dialect, "POST", uri) is None


@pytest.mark.parametrize(
    ("dialect", "method", "uri", "said"),
    [
        ("openai_chat", "GET", "https://raw.githubusercontent.com/o/r/main/apples.pdf", "not a generation call"),
        ("anthropic", "HEAD", "https://static.example.net/pelican.jpg", "not a generation call"),
        ("openai_chat", "POST", "https://telemetry.example.com:4319/v1/traces", "not a generation call of"),
        ("openai_chat", "POST", "https://api.openai.com/v1/responses", "generation call of the openai_responses"),
        ("openai_responses", "GET", "https://api.openai.com/v1/responses/resp_123", "Responses API retrieval"),
        ("gemini", "POST", "https://oauth2.googleapis.com/token", "OAuth"),
        ("gemini", "POST", "https://generativelanguage.googleapis.com/v1beta/fileSearchStores", "file"),
        ("anthropic", "POST", "https://api.anthropic.com/v1/messages/count_tokens", "token count"),
        ("openai_chat", "GET", "https://api.openai.com/v1/chat/completions", "not a generation call"),
    ],
)
def test_other_calls_are_skipped_with_what_they_are(dialect: str, method: str, uri: str, said: str) -> None:
    reason = skip_reason(dialect, method, uri)
    assert reason is not None and said in reason
    assert method in reason


def test_a_query_key_never_reaches_the_reason() -> None:
    reason = skip_reason("gemini", "GET", "https://example.com/file.pdf?key=AIzaSECRET")
    assert reason is not None and "SECRET" not in reason


def test_decode_lists_the_other_calls_as_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A recording that downloaded a PDF before asking decodes its generation call, exit 0."""
    answer = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Apples."}, "finish_reason": "stop"}],
    }
    cassette = {
        "interactions": [
            {
                "request": {"method": "GET", "uri": "https://example.com/apples.pdf", "body": None, "headers": {}},
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": ["application/pdf"]},
                    "body": {"string": "%PDF-1.4 binary"},
                },
            },
            {
                "request": {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions", "body": "{}"},
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": ["application/json"]},
                    "body": {"string": json.dumps(answer)},
                },
            },
        ],
        "version": 1,
    }
    path = tmp_path / "pdf.yaml"
    path.write_text(json.dumps(cassette))  # JSON is YAML
    assert main(["decode", "--provider", "openai", str(path)]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first == {"interaction": 0, "skipped": "not a generation call: GET https://example.com/apples.pdf"}
    assert second["message"]["content"] == [{"type": "text", "text": "Apples."}]
