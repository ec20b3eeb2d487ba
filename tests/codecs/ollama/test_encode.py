"""Ollama `/api/chat` request encoding (§5.2)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.codecs.ollama import encode
from conformance.exceptions import InputError
from conformance.model import Conversation
from tests.codecs.ollama.helpers import PROFILE

WEATHER = {
    "name": "get_weather",
    "description": "Weather by city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}

HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be terse."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Describe"},
            {"type": "image", "data": "iVBOR", "media_type": "image/png"},
        ],
    },
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "use the tool"},
            {
                "type": "tool_call",
                "id": "call_k3j9x0ab",
                "name": "get_weather",
                "arguments": {"city": "Tokyo"},
            },
        ],
    },
    {"role": "tool_result", "tool_call_id": "call_k3j9x0ab", "content": "18C"},
]


def encoded(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return encode(Conversation.model_validate({"messages": messages, **extra}), PROFILE).body


def test_native_request() -> None:
    request = encode(
        Conversation.model_validate(
            {
                "messages": HISTORY,
                "tools": [WEATHER],
                "options": {"max_tokens": 512, "temperature": 0.2, "top_p": 0.9, "stop": ["END"]},
            }
        ),
        PROFILE,
    )
    assert (request.method, request.path, request.stream) == ("POST", "/api/chat", False)
    assert request.headers == {"content-type": "application/json"}
    assert request.body == {
        "model": "llama3.2",
        "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": "Describe", "images": ["iVBOR"]},
            {
                "role": "assistant",
                "content": "",
                "thinking": "use the tool",
                "tool_calls": [
                    {
                        "id": "call_k3j9x0ab",
                        "function": {"name": "get_weather", "arguments": {"city": "Tokyo"}},
                    }
                ],
            },
            {"role": "tool", "content": "18C", "tool_name": "get_weather", "tool_call_id": "call_k3j9x0ab"},
        ],
        "stream": False,
        "tools": [{"type": "function", "function": WEATHER}],
        "options": {"num_predict": 512, "temperature": 0.2, "top_p": 0.9, "stop": ["END"]},
    }


def test_stream_is_always_explicit_and_think_follows_the_budget() -> None:
    body = encoded([{"role": "user", "content": "hi"}], options={"stream": True, "thinking_budget": 2048})
    assert (body["stream"], body["think"]) == (True, True)
    assert "options" not in body
    assert encoded([{"role": "user", "content": "hi"}], options={"thinking_budget": 0})["think"] is False


def test_data_url_images_are_unwrapped_and_remote_urls_rejected() -> None:
    body = encoded([{"role": "user", "content": [{"type": "image", "url": "data:image/png;base64,AAAA"}]}])
    assert body["messages"][0]["images"] == ["AAAA"]
    with pytest.raises(InputError, match=r"messages\[0\]\.content\[0\]"):
        encoded([{"role": "user", "content": [{"type": "image", "url": "https://example.com/a.png"}]}])


def test_tool_choice_none_offers_no_tools() -> None:
    body = encoded([{"role": "user", "content": "hi"}], tools=[WEATHER], options={"tool_choice": "none"})
    assert "tools" not in body


def test_prompt_tools_for_models_without_native_calling() -> None:
    # gemma3 is registered with native_tools=False.
    body = encoded(HISTORY, tools=[WEATHER], model="gemma3:4b", options={"tool_choice": "required"})
    assert "tools" not in body
    system, user, assistant, result = body["messages"]
    assert system["role"] == "system"
    assert system["content"].startswith("Be terse.\n\nYou can call these tools:")
    assert '"city":{"type":"string"}' in system["content"]
    assert '{"tool_calls": [{"name": "<tool name>", "arguments": {<arguments as JSON>}}]}' in system["content"]
    assert "You must call at least one tool." in system["content"]
    assert user == {"role": "user", "content": "Describe", "images": ["iVBOR"]}
    assert assistant == {
        "role": "assistant",
        "content": '```json\n{"tool_calls":[{"name":"get_weather","arguments":{"city":"Tokyo"}}]}\n```',
        "thinking": "use the tool",
    }
    assert result == {"role": "user", "content": "[tool_result get_weather call_k3j9x0ab]\n18C"}


def test_prompt_tools_add_a_system_message_when_there_is_none() -> None:
    body = encoded([{"role": "user", "content": "hi"}], tools=[WEATHER], model="phi3")
    assert body["messages"][0]["role"] == "system"
    assert body["messages"][0]["content"].startswith("You can call these tools:")
