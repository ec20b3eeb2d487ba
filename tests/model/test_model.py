"""The canonical model accepts the contract's JSON and gives it back unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from conformance.model import MESSAGES_ADAPTER, AssistantMessage, Outcome, dump

CONTRACT_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": [{"type": "text", "text": "Be terse."}]},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is in this image?"},
            {"type": "image", "media_type": "image/png", "data": "iVBORw0KGgo="},
        ],
    },
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Look closely.", "signature": "EqQBCkgIARABGAIiQL+/="},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3"},
            {"type": "text", "text": "Checking.", "signature": "c2ln"},
            {
                "type": "tool_call",
                "id": "toolu_01",
                "name": "get_weather",
                "arguments": {},
                "raw_arguments": "{bad",
                "signature": "Z2Vt",
            },
        ],
        "stop_reason": "tool_use",
        "raw_stop_reason": "tool_use",
        "usage": {
            "input_tokens": 120,
            "output_tokens": 48,
            "cache_read_tokens": 100,
            "cache_write_tokens": 0,
            "reasoning_tokens": 30,
        },
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
    },
    {
        "role": "tool_result",
        "tool_call_id": "toolu_01",
        "tool_name": "get_weather",
        "content": [{"type": "text", "text": "18C"}],
        "is_error": False,
    },
]


def test_contract_json_round_trips() -> None:
    messages = MESSAGES_ADAPTER.validate_python(CONTRACT_MESSAGES)
    assert [dump(m) for m in messages] == CONTRACT_MESSAGES
    again = MESSAGES_ADAPTER.validate_json(MESSAGES_ADAPTER.dump_json(messages))
    assert again == messages


def test_a_server_tool_block_keeps_its_item_exactly() -> None:
    item = {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"sources": None, "n": 1.5}}
    block = {"type": "server_tool", "dialect": "openai_responses", "name": "web_search_call", "id": "ws_1"}
    message = {"role": "assistant", "content": [{**block, "status": "completed", "data": item}]}
    (parsed,) = MESSAGES_ADAPTER.validate_python([message])
    assert dump(parsed) == message  # nulls inside the item are kept: they are the provider's
    assert list(dump(parsed)["content"][0]["data"]) == ["id", "type", "status", "action"]


def test_text_shorthand_and_omitted_defaults() -> None:
    (msg,) = MESSAGES_ADAPTER.validate_python([{"role": "tool_result", "tool_call_id": "c1", "content": "ok"}])
    assert dump(msg) == {
        "role": "tool_result",
        "tool_call_id": "c1",
        "content": [{"type": "text", "text": "ok"}],
        "is_error": False,
    }


@pytest.mark.parametrize(
    "bad",
    [
        {"role": "robot", "content": []},
        {"role": "user", "content": [{"type": "tool_call", "id": "x", "name": "y"}]},
        {"role": "assistant", "content": [], "stop_reason": "finished"},
        {"role": "user", "content": "hi", "extra": 1},
        {"role": "assistant", "content": [{"type": "server_tool", "dialect": "anthropic", "name": "x"}]},
        {
            "role": "tool_result",
            "tool_call_id": "c",
            "content": [{"type": "server_tool", "dialect": "a", "name": "x", "data": {}}],
        },
    ],
)
def test_invalid_messages_are_rejected(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        MESSAGES_ADAPTER.validate_python([bad])


def test_outcome_shapes() -> None:
    ok = Outcome(message=AssistantMessage(content=[], stop_reason="stop"))
    assert ok.to_json() == {"message": {"role": "assistant", "content": [], "stop_reason": "stop"}}
    failed = Outcome.model_validate({"error": {"kind": "rate_limited", "status": 429, "retry_after_s": 30}})
    assert failed.to_json() == {
        "error": {"kind": "rate_limited", "status": 429, "retry_after_s": 30.0, "message": ""},
        "partial": None,
    }
    with pytest.raises(ValidationError):
        Outcome.model_validate({})
