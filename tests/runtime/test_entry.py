"""Entry validation: clear errors naming the field, before any request is made."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.exceptions import InputError
from conformance.runtime.entry import validate_entry


@pytest.mark.parametrize(
    ("conversation", "key", "message"),
    [
        ({"messages": [{"role": "user", "content": "hi"}]}, "", "anthropic needs an API key (ANTHROPIC_API_KEY)"),
        ({"messages": []}, "k", "messages: at least one message is needed"),
        ({"messages": [{"role": "user", "content": [{"type": "text"}]}]}, "k", "messages[0].content[0].text"),
        (
            {
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"name": "t", "parameters": {"type": "string"}}],
            },
            "k",
            "tools[0].parameters",
        ),
    ],
)
def test_entry_validation(conversation: dict[str, Any], key: str, message: str) -> None:
    with pytest.raises(
        InputError, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(").replace(")", r"\)")
    ):
        validate_entry(conversation, get_profile("anthropic"), key)


HI = {"messages": [{"role": "user", "content": "hi"}]}


def where(conversation: dict[str, Any], key: str | None = "k", provider: str = "anthropic") -> str | None:
    with pytest.raises(InputError) as info:
        validate_entry(conversation, get_profile(provider), key)
    return info.value.where


def test_the_field_path_points_into_nested_messages() -> None:
    conv = {
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "user", "content": [{"type": "text", "text": "ok"}, {"type": "text", "text": 5}]},
        ]
    }
    assert where(conv) == "conversation: messages[2].content[1].text"


def test_an_unknown_role_is_named() -> None:
    assert where({"messages": [{"role": "robot", "content": "hi"}]}) == "conversation: messages[0]"


@pytest.mark.parametrize("key", [None, "", "   "])
def test_an_empty_key_is_refused_and_the_variable_named(key: str | None) -> None:
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        validate_entry(HI, get_profile("openai"), key)


def test_a_keyless_provider_needs_no_key() -> None:
    conv = validate_entry(HI, get_profile("ollama"), None)
    assert conv.messages[0].role == "user"


def test_a_model_is_needed_when_the_profile_has_no_default() -> None:
    profile = get_profile("openai-compatible").model_copy(update={"default_model": ""})
    with pytest.raises(InputError, match="no model given") as info:
        validate_entry(HI, profile, "k")
    assert info.value.where == "model"
    assert validate_entry({**HI, "model": "m"}, profile, "k").model == "m"


@pytest.mark.parametrize(
    ("tool", "field"),
    [
        ({"name": "t", "parameters": {"type": "array"}}, "tools[0].parameters"),
        ({"name": "t", "parameters": {"type": "object", "properties": []}}, "tools[0].parameters.properties"),
        ({"name": "", "parameters": {"type": "object"}}, "tools[0].name"),
    ],
)
def test_malformed_tool_schemas_are_named(tool: dict[str, Any], field: str) -> None:
    assert where({**HI, "tools": [tool]}) == field
