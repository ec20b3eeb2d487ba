"""Conversation → Responses request body (wire reference §2.2), checked by its validator too."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.exceptions import InputError, UnsupportedFeatureError
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.validate import validate

SIG = '{"id":"rs_1","encrypted_content":"gAAA-enc"}'
HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Oslo?"},
    {
        "role": "assistant",
        "provider": "openai_responses",
        "model": "gpt-5-mini",
        "content": [
            {"type": "thinking", "thinking": "Use the tool.", "signature": SIG},
            {"type": "text", "text": "Checking.", "signature": "msg_1"},
            {
                "type": "tool_call",
                "id": "call_1",
                "name": "get_weather",
                "arguments": {"city": "Oslo"},
                "signature": "fc_1",
            },
        ],
    },
    {"role": "tool_result", "tool_call_id": "call_1", "tool_name": "get_weather", "content": "3 °C"},
]
TOOLS = [{"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {}}}]


def encode(conv: dict[str, Any], provider: str = "openai_responses") -> dict[str, Any]:
    body = ReferenceRuntime().encode(conv, provider)
    assert validate(body, get_profile(provider)) == []
    return body


def test_full_history_sends_items_and_keeps_reasoning_stateless() -> None:
    body = encode({"model": "gpt-5-mini", "messages": HISTORY, "tools": TOOLS, "options": {"max_tokens": 256}})
    assert body == {
        "model": "gpt-5-mini",
        "input": [
            {"role": "developer", "content": "Be brief."},  # the o-series take the system prompt as developer
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Use the tool."}],
                "encrypted_content": "gAAA-enc",
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Checking."}],
                "id": "msg_1",
            },
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city":"Oslo"}',
                "id": "fc_1",
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "3 °C"},
        ],
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "tools": [
            {
                "type": "function",
                "name": "get_weather",
                "description": "Weather.",
                "parameters": {"type": "object", "properties": {}},
                "strict": False,
            }
        ],
        "max_output_tokens": 256,
    }


def test_previous_response_id_sends_only_what_follows_the_last_answer() -> None:
    conv = {"model": "gpt-5-mini", "messages": HISTORY, "options": {"previous_response_id": "resp_9", "stream": True}}
    body = encode(conv)
    assert body["input"] == [{"type": "function_call_output", "call_id": "call_1", "output": "3 °C"}]
    assert body["previous_response_id"] == "resp_9" and body["stream"] is True
    assert "store" not in body


def test_a_stateless_server_refuses_previous_response_id() -> None:
    with pytest.raises(InputError, match="keeps no responses"):
        ReferenceRuntime().encode(
            {"messages": HISTORY, "options": {"previous_response_id": "resp_9"}}, "openrouter_responses"
        )


def test_thinking_from_elsewhere_is_not_sent_and_min_tokens_hold() -> None:
    foreign = [
        {"role": "user", "content": "Hi"},
        {
            "role": "assistant",
            "provider": "anthropic",
            "model": "claude",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "EqQB"},
                {"type": "text", "text": "Hello"},
            ],
        },
        {"role": "user", "content": [{"type": "text", "text": "Look"}, {"type": "image", "url": "https://x/y.png"}]},
    ]
    options = {"max_tokens": 4, "stop": ["END"]}
    with pytest.raises(UnsupportedFeatureError, match="does not accept stop"):  # the Responses API has no stop
        encode({"model": "gpt-4.1-mini", "messages": foreign, "options": options})
    body = encode({"model": "gpt-4.1-mini", "messages": foreign, "options": {**options, "drop_unsupported": True}})
    assert body["input"][1] == {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hello"}],
    }
    assert body["input"][2]["content"] == [
        {"type": "input_text", "text": "Look"},
        {"type": "input_image", "image_url": "https://x/y.png"},
    ]
    assert body["max_output_tokens"] == 16 and "stop" not in body and "include" not in body


def test_error_results_and_images_in_tool_output() -> None:
    conv = {
        "messages": [
            {"role": "user", "content": "Shot?"},
            {"role": "assistant", "content": [{"type": "tool_call", "id": "call_2", "name": "shot", "arguments": {}}]},
            {
                "role": "tool_result",
                "tool_call_id": "call_2",
                "is_error": True,
                "content": [
                    {"type": "text", "text": "partial"},
                    {"type": "image", "media_type": "image/png", "data": "iVBO"},
                ],
            },
        ]
    }
    body = encode(conv)
    assert body["input"][-1] == {
        "type": "function_call_output",
        "call_id": "call_2",
        "output": [
            {"type": "input_text", "text": "Error: "},
            {"type": "input_text", "text": "partial"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBO"},
        ],
    }


def test_validator_names_the_documented_rules() -> None:
    profile = get_profile("openai_responses")
    body = {
        "model": "gpt-5-mini",
        "store": False,
        "input": [
            {"role": "user", "content": "x"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"role": "user", "content": "y"},
            {"type": "function_call_output", "call_id": "call_x", "output": "z"},
            {"type": "function_call", "call_id": "call_y", "name": "f", "arguments": {}},
            {"role": "user", "content": "w"},
        ],
        "tools": [{"type": "function", "function": {"name": "f"}}],
        "max_output_tokens": 8,
    }
    rules = sorted(v.rule for v in validate(body, profile))
    assert rules == sorted(
        [
            "reasoning_following_item",
            "reasoning_encrypted_content",
            "orphan_call_output",
            "arguments_string",
            "call_unanswered",
            "flat_tool",
            "min_max_tokens",
        ]
    )


def test_a_call_left_unanswered_at_the_end_of_the_input_is_rejected() -> None:
    """ "No tool output found for function call": a function_call needs its output in the same
    input, last item or not; a transcript waiting for its tools may end so."""
    profile = get_profile("openai_responses")
    call = {"type": "function_call", "call_id": "call_y", "name": "f", "arguments": "{}"}
    body = {"model": "gpt-5-mini", "input": [{"role": "user", "content": "x"}, call]}
    assert [(v.path, v.rule) for v in validate(body, profile)] == [("input[1]", "pending_call")]
    assert validate(body, profile, awaiting_tools=True) == []
    body["input"].append({"type": "function_call_output", "call_id": "call_y", "output": "z"})
    assert validate(body, profile) == []
