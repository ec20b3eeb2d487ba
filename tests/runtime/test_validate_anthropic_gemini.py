"""Anthropic and Gemini request validators: a valid and an invalid body per rule."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.runtime.validate import validate
from tests.runtime.builders import found_rules

Body = dict[str, Any]


Mutation = Callable[[Body], None]


def anthropic_body() -> Body:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "terse"}],
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "look up", "signature": "EqQB"},
                    {"type": "tool_use", "id": "toolu_01", "name": "w", "input": {"city": "Paris"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01", "content": "18C"},
                    {"type": "text", "text": "and tomorrow?"},
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "same"}]},
        ],
    }


def _msg(i: int) -> Callable[[Body], dict[str, Any]]:
    return lambda b: b["messages"][i]


ANTHROPIC_CASES: dict[str, tuple[str, Mutation]] = {
    "model": ("model_required", lambda b: b.pop("model")),
    "messages": ("messages_required", lambda b: b.pop("messages")),
    "max_tokens_missing": ("max_tokens_required", lambda b: b.pop("max_tokens")),
    "max_tokens_zero": ("max_tokens_required", lambda b: b.update(max_tokens=0)),
    "role": ("system_message", lambda b: b["messages"].insert(0, {"role": "system", "content": "x"})),
    "first_user": ("first_user", lambda b: b["messages"].pop(0)),
    # two user messages read as one turn (the API combines them): text before the results is still caught
    "result_first_across_messages": (
        "tool_result_first",
        lambda b: b["messages"].insert(2, {"role": "user", "content": "first, some text"}),
    ),
    "tool_use_id": ("tool_use_id", lambda b: b["messages"][1]["content"][1].update(id="call.1")),
    "unanswered": ("tool_use_unanswered", lambda b: b["messages"][2].update(content="no results")),
    "result_first": ("tool_result_first", lambda b: b["messages"][2]["content"].reverse()),
    "orphan": (
        "orphan_tool_result",
        lambda b: b["messages"][2]["content"].insert(1, {"type": "tool_result", "tool_use_id": "toolu_x"}),
    ),
    "empty_text": ("empty_text", lambda b: b["messages"][3]["content"][0].update(text="")),
    "input_object": ("input_object", lambda b: b["messages"][1]["content"][1].update(input="{}")),
    "thinking_signature": ("thinking_signature", lambda b: b["messages"][1]["content"][0].pop("signature")),
}


def test_valid_anthropic_body_passes() -> None:
    assert validate(anthropic_body(), get_profile("anthropic")) == []


def test_consecutive_same_role_messages_are_one_turn_as_anthropic_reads_them() -> None:
    body = anthropic_body()
    body["messages"].insert(0, {"role": "user", "content": "an earlier note"})
    body["messages"].append({"role": "assistant", "content": "and more"})
    assert validate(body, get_profile("anthropic")) == []


def test_a_request_ending_with_an_unanswered_tool_use_is_rejected() -> None:
    """Anthropic answers a final assistant message holding a tool_use with the same 400 as a
    tool_use answered nowhere; a transcript waiting for its tools may end so."""
    body = anthropic_body()
    del body["messages"][2:]
    assert {v.rule for v in validate(body, get_profile("anthropic"))} == {"pending_call"}
    assert validate(body, get_profile("anthropic"), awaiting_tools=True) == []


def test_a_request_ending_with_a_function_call_turn_is_rejected() -> None:
    body = gemini_body()
    del body["contents"][2:]
    assert {v.rule for v in validate(body, get_profile("gemini"))} == {"pending_call"}
    assert validate(body, get_profile("gemini"), awaiting_tools=True) == []
    body["contents"].append({"role": "user", "parts": [{"text": "never mind"}]})
    assert "pending_call" not in {v.rule for v in validate(body, get_profile("gemini"))}


@pytest.mark.parametrize("case", sorted(ANTHROPIC_CASES))
def test_anthropic_rule(case: str) -> None:
    rule, mutate = ANTHROPIC_CASES[case]
    body = copy.deepcopy(anthropic_body())
    mutate(body)
    assert rule in found_rules(body, "anthropic")


def gemini_body() -> Body:
    return {
        "systemInstruction": {"parts": [{"text": "terse"}]},
        "contents": [
            {"role": "user", "parts": [{"text": "weather?"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "w", "args": {"city": "Paris"}}, "thoughtSignature": "sig"},
                    {"functionCall": {"name": "w", "args": {"city": "Rome"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "w", "response": {"output": "18C"}}},
                    {"functionResponse": {"name": "w", "response": {"output": "25C"}}},
                ],
            },
            {"role": "model", "parts": [{"text": "warm"}]},
        ],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "w",
                        "parameters": {
                            "type": "object",
                            "properties": {
                                "city": {"type": "string", "nullable": True},
                                "when": {"type": "string", "format": "date-time"},
                                "unit": {"type": "string", "enum": ["C", "F"]},
                            },
                        },
                    }
                ]
            }
        ],
    }


def _params(b: Body) -> dict[str, Any]:
    params: dict[str, Any] = b["tools"][0]["functionDeclarations"][0]["parameters"]
    return params


GEMINI_CASES: dict[str, tuple[str, Mutation]] = {
    "contents": ("contents_required", lambda b: b.pop("contents")),
    "role": ("role", lambda b: b["contents"][3].update(role="assistant")),
    "first_user": ("first_user", lambda b: b["contents"].pop(0)),
    "alternation": ("alternation", lambda b: b["contents"].append({"role": "model", "parts": [{"text": "x"}]})),
    # consecutive model contents read as one turn (real gemini-3 traffic): a history starting with calls breaks it
    "call_after_user": ("call_after_user", lambda b: b["contents"].pop(0)),
    "response_after_call": (
        "response_after_call",
        lambda b: b["contents"][1].update(parts=[{"text": "no call"}]),
    ),
    "response_count": ("response_count", lambda b: b["contents"][2]["parts"].pop()),
    "response_object": (
        "response_object",
        lambda b: b["contents"][2]["parts"][0]["functionResponse"].update(response="18C"),
    ),
    "schema_keyword": ("schema_keyword.additionalProperties", lambda b: _params(b).update(additionalProperties=False)),
    "schema_const": ("schema_keyword.const", lambda b: _params(b)["properties"]["unit"].update(const="C")),
    "schema_ref": ("schema_keyword.$ref", lambda b: _params(b)["properties"].update(x={"$ref": "#/$defs/X"})),
    "type_array": ("schema_type_array", lambda b: _params(b)["properties"]["city"].update(type=["string", "null"])),
    "enum_strings": ("schema_enum_strings", lambda b: _params(b)["properties"]["unit"].update(enum=[1, 2])),
    "format": ("schema_format", lambda b: _params(b)["properties"]["when"].update(format="email")),
}


def test_valid_gemini_body_passes() -> None:
    assert validate(gemini_body(), get_profile("gemini")) == []


@pytest.mark.parametrize("case", sorted(GEMINI_CASES))
def test_gemini_rule(case: str) -> None:
    rule, mutate = GEMINI_CASES[case]
    body = copy.deepcopy(gemini_body())
    mutate(body)
    assert rule in found_rules(body, "gemini")


def test_property_named_like_a_keyword_is_not_a_violation() -> None:
    body = gemini_body()
    _params(body)["properties"]["title"] = {"type": "string"}
    assert validate(body, get_profile("gemini")) == []
