"""Encoding conversations into Messages API requests (reference section 3.2)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.codecs.anthropic import encode
from conformance.exceptions import InputError
from conformance.model import Conversation
from tests.codecs.anthropic.helpers import PROFILE


def body(conv: dict[str, Any]) -> dict[str, Any]:
    return encode(Conversation.model_validate(conv), PROFILE).body


def test_request_line_headers_and_defaults() -> None:
    request = encode(Conversation.model_validate({"messages": [{"role": "user", "content": "Hi"}]}), PROFILE)
    assert (request.method, request.path, request.stream) == ("POST", "/messages", False)
    assert request.url(PROFILE) == "https://api.anthropic.com/v1/messages"
    assert request.headers == {"content-type": "application/json", "anthropic-version": "2023-06-01"}
    assert request.body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
    }


def test_no_credentials_in_headers() -> None:
    request = encode(Conversation.model_validate({"messages": [{"role": "user", "content": "Hi"}]}), PROFILE)
    assert not {"x-api-key", "authorization"} & {k.lower() for k in request.headers}


def test_stream_flag() -> None:
    conv = Conversation.model_validate({"messages": [{"role": "user", "content": "Hi"}], "options": {"stream": True}})
    request = encode(conv, PROFILE)
    assert request.stream is True
    assert request.body["stream"] is True


@pytest.mark.parametrize(
    ("model", "max_tokens", "expected"),
    [
        ("claude-3-5-haiku-20241022", None, 4096),  # default below the model's 8192 cap
        ("claude-sonnet-4-5", 100, 100),
        ("claude-sonnet-4-5", 0, 1),  # clamped to >= 1
    ],
)
def test_max_tokens(model: str, max_tokens: int | None, expected: int) -> None:
    conv = {
        "model": model,
        "messages": [{"role": "user", "content": "Hi"}],
        "options": {"max_tokens": max_tokens},
    }
    assert body(conv)["max_tokens"] == expected


def test_default_max_tokens_is_capped_at_the_model_output_limit() -> None:
    profile = get_profile("anthropic").model_copy(update={"default_max_tokens": 100_000})
    conv = Conversation.model_validate({"model": "claude-opus-4-1", "messages": [{"role": "user", "content": "x"}]})
    assert encode(conv, profile).body["max_tokens"] == 32_000


def test_system_messages_become_the_system_array_in_order() -> None:
    conv = {
        "messages": [
            {
                "role": "system",
                "content": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": ""}],
            },
            {"role": "user", "content": "Hi"},
            {"role": "system", "content": "Answer in French."},
        ]
    }
    out = body(conv)
    assert out["system"] == [
        {"type": "text", "text": "Be brief."},
        {"type": "text", "text": "Answer in French."},
    ]
    assert out["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]


def test_tool_loop_with_thinking() -> None:
    conv = {
        "messages": [
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Two calls.", "signature": "EqQB+/sig=="},
                    {"type": "redacted_thinking", "data": "EmwKAhgB"},
                    {"type": "text", "text": ""},
                    {
                        "type": "tool_call",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "arguments": {"city": "Paris"},
                    },
                    {
                        "type": "tool_call",
                        "id": "toolu_2",
                        "name": "get_weather",
                        "arguments": {},
                        "raw_arguments": "{city: Rome",
                    },
                ],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 1, "output_tokens": 2},
            },
            {"role": "tool_result", "tool_call_id": "toolu_1", "tool_name": "get_weather", "content": "18C"},
            {"role": "tool_result", "tool_call_id": "toolu_2", "content": "bad arguments", "is_error": True},
            {"role": "user", "content": "Thanks, and tomorrow?"},
        ]
    }
    assert body(conv)["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Rome?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Two calls.", "signature": "EqQB+/sig=="},
                {"type": "redacted_thinking", "data": "EmwKAhgB"},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "bad arguments",
                    "is_error": True,
                },
                {"type": "text", "text": "Thanks, and tomorrow?"},
            ],
        },
    ]


def test_tool_results_go_first_even_after_user_text() -> None:
    conv = {
        "messages": [
            {"role": "assistant", "content": [{"type": "tool_call", "id": "toolu_1", "name": "f"}]},
            {"role": "user", "content": "note"},
            {"role": "tool_result", "tool_call_id": "toolu_1", "content": "ok"},
        ]
    }
    assert body(conv)["messages"][1] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
            {"type": "text", "text": "note"},
        ],
    }


def test_tool_result_content_shapes() -> None:
    conv = {
        "messages": [
            {"role": "assistant", "content": [{"type": "tool_call", "id": "t1", "name": "f"}]},
            {"role": "tool_result", "tool_call_id": "t1", "content": []},
            {
                "role": "tool_result",
                "tool_call_id": "t2",
                "content": [
                    {"type": "text", "text": "chart:"},
                    {"type": "image", "media_type": "image/png", "data": "iVBORw0KGgo="},
                ],
            },
        ]
    }
    assert body(conv)["messages"][1]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1"},
        {
            "type": "tool_result",
            "tool_use_id": "t2",
            "content": [
                {"type": "text", "text": "chart:"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
                },
            ],
        },
    ]


def test_images() -> None:
    conv = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "media_type": "image/jpeg", "data": "/9j/4AAQ"},
                    {"type": "image", "url": "https://example.com/cat.png"},
                    {"type": "image", "url": "data:image/webp;base64,UklGR"},
                    {"type": "text", "text": "Compare."},
                ],
            }
        ]
    }
    assert body(conv)["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/webp", "data": "UklGR"}},
        {"type": "text", "text": "Compare."},
    ]


def test_text_signatures_and_unsigned_thinking_are_not_sent() -> None:
    conv = {
        "messages": [
            {"role": "user", "content": "Hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "from another provider"},
                    {"type": "text", "text": "Hello", "signature": "gemini-sig"},
                ],
            },
        ]
    }
    assert body(conv)["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]}


def test_consecutive_same_role_messages_merge_and_empty_turns_are_dropped() -> None:
    conv = {
        "messages": [
            {"role": "user", "content": "a"},
            {"role": "user", "content": "b"},
            {"role": "assistant", "content": [{"type": "text", "text": ""}]},
            {"role": "user", "content": "c"},
        ]
    }
    assert body(conv)["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "text", "text": "b"},
                {"type": "text", "text": "c"},
            ],
        }
    ]


def test_tools_and_tool_choice() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    conv = {
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [
            {"name": "get_weather", "description": "Weather now.", "parameters": schema},
            {"name": "noop"},
        ],
        "options": {"tool_choice": "required"},
    }
    out = body(conv)
    assert out["tools"] == [
        {"name": "get_weather", "description": "Weather now.", "input_schema": schema},
        {"name": "noop", "input_schema": {"type": "object", "properties": {}}},
    ]
    assert out["tool_choice"] == {"type": "any"}


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", {"type": "auto"}),
        ("none", {"type": "none"}),
        ("required", {"type": "any"}),
        ("get_weather", {"type": "tool", "name": "get_weather"}),
        ({"type": "tool", "name": "get_weather"}, {"type": "tool", "name": "get_weather"}),
        ({"type": "function", "function": {"name": "get_weather"}}, {"type": "tool", "name": "get_weather"}),
    ],
)
def test_tool_choice_table(choice: Any, wire: dict[str, str]) -> None:
    conv = {
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [{"name": "get_weather"}],
        "options": {"tool_choice": choice},
    }
    assert body(conv)["tool_choice"] == wire


def test_sampling_options() -> None:
    conv = {
        "messages": [{"role": "user", "content": "Hi"}],
        "options": {"temperature": 0.2, "top_p": 0.9, "stop": ["END"], "top_k": 5, "seed": 7},
    }
    out = body(conv)
    assert (out["temperature"], out["top_p"], out["stop_sequences"], out["top_k"]) == (0.2, 0.9, ["END"], 5)
    assert "seed" not in out  # not an Anthropic request field


def test_thinking_budget_drops_temperature() -> None:
    conv = {
        "messages": [{"role": "user", "content": "Hi"}],
        "options": {"thinking_budget": 2048, "temperature": 0.5, "max_tokens": 8000},
    }
    out = body(conv)
    assert out["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "temperature" not in out
    assert out["max_tokens"] == 8000


def test_zero_thinking_budget_disables_thinking_and_keeps_temperature() -> None:
    conv = {
        "messages": [{"role": "user", "content": "Hi"}],
        "options": {"thinking_budget": 0, "temperature": 0.5},
    }
    out = body(conv)
    assert out["thinking"] == {"type": "disabled"}
    assert out["temperature"] == 0.5


@pytest.mark.parametrize(
    ("conv", "where"),
    [
        (
            {"messages": [{"role": "user", "content": [{"type": "image", "data": "xx"}]}]},
            "messages[0].content[0].media_type",
        ),
        ({"messages": [{"role": "user", "content": [{"type": "image"}]}]}, "messages[0].content[0]"),
        (
            {"messages": [{"role": "user", "content": [{"type": "image", "url": "data:image/png,raw"}]}]},
            "messages[0].content[0].url",
        ),
        (
            {"messages": [{"role": "assistant", "content": [{"type": "image", "url": "https://x/y.png"}]}]},
            "messages[0].content[0]",
        ),
        (  # Anthropic rejects a tool_use without a name; Gemini's encoder refuses it the same way
            {"messages": [{"role": "assistant", "content": [{"type": "tool_call", "id": "toolu_1", "name": ""}]}]},
            "messages[0].content[0].name",
        ),
        ({"messages": [], "options": {"tool_choice": "unknown_tool"}}, "options.tool_choice"),
        ({"messages": [], "options": {"tool_choice": {"type": "tool"}}}, "options.tool_choice"),
        ({"messages": [], "options": {"thinking_budget": -1}}, "options.thinking_budget"),
    ],
)
def test_malformed_conversations_name_the_field(conv: dict[str, Any], where: str) -> None:
    with pytest.raises(InputError) as info:
        body(conv)
    assert info.value.where == where
