"""Encoding for OpenAI and the gateways: every profile flag that changes the body."""

from __future__ import annotations

from typing import Any

from conformance.capabilities import get_profile
from conformance.codecs.openai_chat import encode
from conformance.model import Conversation

HISTORY: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "Be terse."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "media_type": "image/png", "data": "iVBOR"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Look it up."},
                {"type": "tool_call", "id": "call_1", "name": "lookup", "arguments": {"q": "x"}},
            ],
        },
        {"role": "tool_result", "tool_call_id": "call_1", "content": "nothing found", "is_error": True},
    ],
    "tools": [
        {
            "name": "lookup",
            "description": "Look up.",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        }
    ],
    "options": {"max_tokens": 100, "temperature": 0.5, "stop": ["END"], "stream": True, "tool_choice": "required"},
}


def body(provider: str, **update: Any) -> dict[str, Any]:
    conv = Conversation.model_validate({**HISTORY, **update})
    return encode(conv, get_profile(provider)).body


def test_openai_body() -> None:
    out = body("openai")
    assert out["messages"] == [
        {"role": "system", "content": "Be terse."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"q":"x"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Error: nothing found"},
    ]
    assert out["max_completion_tokens"] == 100 and "max_tokens" not in out
    assert out["tool_choice"] == "required"
    assert out["stream_options"] == {"include_usage": True}
    assert out["tools"][0]["function"]["name"] == "lookup"


def test_reasoning_models_drop_what_they_reject() -> None:
    out = body("openai", model="o4-mini")
    assert "temperature" not in out and "stop" not in out
    assert out["max_completion_tokens"] == 100


def test_gateways() -> None:
    mistral = body("mistral")
    assert mistral["tool_choice"] == "any" and mistral["max_tokens"] == 100 and "stream_options" not in mistral
    xai = body("xai")
    assert xai["messages"][2]["reasoning_content"] == "Look it up."
    deepseek = body("deepseek")
    assert "reasoning_content" not in deepseek["messages"][2]
    openrouter = body("openrouter")
    assert openrouter["messages"][2]["reasoning"] == "Look it up."


def test_invalid_arguments_go_back_verbatim() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_call", "id": "c", "name": "f", "arguments": {}, "raw_arguments": '{"a": '}],
        },
        {"role": "tool_result", "tool_call_id": "c", "content": "ok"},
    ]
    out = body("openai", messages=messages)
    assert out["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"a": '


def test_extra_options_pass_through() -> None:
    out = body("openai", options={"reasoning_effort": "low"})
    assert out["reasoning_effort"] == "low" and "stream" not in out
