"""OpenAI-chat (and gateway) and Ollama request validators: a valid and an invalid body per rule."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.runtime.validate import validate
from tests.runtime.builders import found_rules

Body = dict[str, Any]


def openai_body() -> Body:
    return {
        "model": "gpt-4.1-mini",
        "messages": [
            {"role": "system", "content": "terse"},
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_a", "type": "function", "function": {"name": "w", "arguments": "{}"}},
                    {"id": "call_b", "type": "function", "function": {"name": "w", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "call_a", "content": "18C"},
            {"role": "tool", "tool_call_id": "call_b", "content": "19C"},
            {"role": "assistant", "content": "warm"},
        ],
    }


def _drop(key: str) -> Callable[[Body], None]:
    return lambda b: b.pop(key)


OPENAI_CASES: dict[str, tuple[str, Callable[[Body], None]]] = {
    "model": ("model_required", _drop("model")),
    "messages": ("messages_required", _drop("messages")),
    "role": ("role", lambda b: b["messages"][1].update(role="human")),
    "unanswered": ("tool_call_unanswered", lambda b: b["messages"].pop(4)),
    "answer_after_other": (
        "tool_call_unanswered",
        lambda b: b["messages"].insert(4, {"role": "user", "content": "hurry"}),
    ),
    "orphan": (
        "orphan_tool_message",
        lambda b: b["messages"].insert(2, {"role": "tool", "tool_call_id": "x", "content": ""}),
    ),
    "assistant_content": ("assistant_content", lambda b: b["messages"][5].update(content=None)),
    "arguments_string": (
        "arguments_string",
        lambda b: b["messages"][2]["tool_calls"][0]["function"].update(arguments={}),
    ),
}


def test_valid_openai_body_passes() -> None:
    assert validate(openai_body(), get_profile("openai")) == []


@pytest.mark.parametrize("case", sorted(OPENAI_CASES))
def test_openai_rule(case: str) -> None:
    rule, mutate = OPENAI_CASES[case]
    body = copy.deepcopy(openai_body())
    mutate(body)
    assert rule in found_rules(body, "openai")


def test_calls_left_unanswered_at_the_end_of_a_request_are_rejected() -> None:
    """OpenAI answers an assistant message with tool_calls and no tool messages after it with a 400
    ("An assistant message with 'tool_calls' must be followed by tool messages responding to each
    'tool_call_id'"), last in the request or not; a transcript waiting for its tools may end so."""
    body = openai_body()
    del body["messages"][3:]
    assert {v.rule for v in validate(body, get_profile("openai"))} == {"pending_call"}
    assert validate(body, get_profile("openai"), awaiting_tools=True) == []
    del body["messages"][2]["tool_calls"][1]
    body["messages"].append(
        {"role": "tool", "tool_call_id": body["messages"][2]["tool_calls"][0]["id"], "content": "18C"}
    )
    assert validate(body, get_profile("openai")) == []


def test_mistral_ids_must_be_nine_alphanumerics() -> None:
    body = openai_body()
    mistral = get_profile("mistral")
    assert {v.rule for v in validate(body, mistral)} == {"tool_call_id_pattern"}
    body["messages"][2]["tool_calls"][0]["id"] = "abcDEF123"
    body["messages"][2]["tool_calls"][1]["id"] = "abcDEF124"
    body["messages"][3]["tool_call_id"] = "abcDEF123"
    body["messages"][4]["tool_call_id"] = "abcDEF124"
    assert validate(body, mistral) == []


def ollama_body() -> Body:
    return {
        "model": "llama3.2",
        "messages": [
            {"role": "system", "content": "terse"},
            {"role": "user", "content": "weather?", "images": ["iVBORw0KGgo="]},
            {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "w", "arguments": {}}}]},
            {"role": "tool", "tool_name": "w", "content": "18C"},
            {"role": "assistant", "content": "warm"},
        ],
    }


OLLAMA_CASES: dict[str, tuple[str, Callable[[Body], None]]] = {
    "model": ("model_required", _drop("model")),
    "role": ("role", lambda b: b["messages"][1].update(role="model")),
    "content": ("content_string", lambda b: b["messages"][1].update(content=[{"type": "text"}])),
    "images": ("images", lambda b: b["messages"][1].update(images=[{"data": "x"}])),
    "tool_after_call": ("tool_after_call", lambda b: b["messages"].insert(2, {"role": "tool", "content": "x"})),
    "tool_name": ("tool_name", lambda b: b["messages"][3].update(tool_name="other")),
}


def test_valid_ollama_body_passes() -> None:
    assert validate(ollama_body(), get_profile("ollama")) == []


@pytest.mark.parametrize("case", sorted(OLLAMA_CASES))
def test_ollama_rule(case: str) -> None:
    rule, mutate = OLLAMA_CASES[case]
    body = copy.deepcopy(ollama_body())
    mutate(body)
    assert rule in found_rules(body, "ollama")
