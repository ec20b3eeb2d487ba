"""Chat Completions requests compared as the provider reads them: each equivalence, and a real difference."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.codecs.openai_chat.request_reader import read
from conformance.codecs.request_form import request_findings
from tests.codecs.request_cases import assert_found, assert_same

TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
BASE: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [TOOL]}

SAME = {
    "stream false": {"stream": False},
    "tool_choice auto with tools": {"tool_choice": "auto"},
    "parallel_tool_calls true": {"parallel_tool_calls": True},
    "n 1": {"n": 1},
    "store false": {"store": False},
    "strict false": {"tools": [{**TOOL, "function": {**TOOL["function"], "strict": False}}]},
    "required []": {
        "tools": [
            {**TOOL, "function": {**TOOL["function"], "parameters": {**TOOL["function"]["parameters"], "required": []}}}
        ]
    },
    "content as one text part": {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
}


@pytest.mark.parametrize("change", SAME.values(), ids=list(SAME))
def test_an_equivalent_spelling_matches(change: dict[str, Any]) -> None:
    assert_same("openai", BASE, {**BASE, **change})


def test_developer_reads_as_system_and_key_order_is_free() -> None:
    expected = {**BASE, "messages": [{"role": "system", "content": "s"}, *BASE["messages"]]}
    actual = {"messages": [{"content": "s", "role": "developer"}, *BASE["messages"]], "tools": [TOOL], "model": "m"}
    assert_same("openai", expected, actual)


@pytest.mark.parametrize("provider", ["openai", "azure", "groq", "xai"])
def test_max_tokens_and_max_completion_tokens_are_one_limit_where_documented(provider: str) -> None:
    assert_same(provider, {**BASE, "max_tokens": 5}, {**BASE, "max_completion_tokens": 5})


@pytest.mark.parametrize("provider", ["deepseek", "openrouter", "fireworks", "together"])
def test_max_completion_tokens_is_another_request_where_only_max_tokens_is_documented(provider: str) -> None:
    found = request_findings(get_profile(provider), {**BASE, "max_tokens": 5}, {**BASE, "max_completion_tokens": 5})
    assert {(f.path, f.verdict) for f in found} == {("max_tokens", "fail"), ("max_completion_tokens", "fail")}


def test_openai_reasoning_models_refuse_max_tokens() -> None:
    o3 = {**BASE, "model": "o3"}
    found = request_findings(get_profile("openai"), {**o3, "max_completion_tokens": 5}, {**o3, "max_tokens": 5})
    assert [(f.path, f.verdict) for f in found] == [("max_tokens", "fail")]
    assert "unsupported_parameter" in found[0].fact
    assert_same("openai", {**BASE, "max_completion_tokens": 5}, {**BASE, "max_tokens": 5})  # gpt-4.1-mini takes both


@pytest.mark.parametrize("provider", ["mistral", "deepseek", "groq", "openrouter"])
def test_developer_is_another_role_where_not_documented_as_system(provider: str) -> None:
    expected = {**BASE, "messages": [{"role": "system", "content": "s"}, *BASE["messages"]]}
    actual = {**BASE, "messages": [{"role": "developer", "content": "s"}, *BASE["messages"]]}
    found = request_findings(get_profile(provider), expected, actual)
    assert [(f.path, f.verdict) for f in found] == [("messages[0].role", "fail")]


def test_mistral_rejects_max_completion_tokens_with_its_fact() -> None:
    found = request_findings(get_profile("mistral"), {**BASE, "max_tokens": 5}, {**BASE, "max_completion_tokens": 5})
    assert [(f.path, f.verdict) for f in found] == [("max_completion_tokens", "fail"), ("max_tokens", "fail")]
    assert "422" in found[0].fact


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"stream": True}, "stream"),
        ({"tool_choice": "required"}, "tool_choice"),
        ({"tools": []}, "tools"),
        ({"messages": [{"role": "user", "content": "bye"}]}, "messages[0].content[0].text"),
        ({"max_completion_tokens": 5}, "max_completion_tokens"),
    ],
)
def test_a_real_difference_is_still_found(change: dict[str, Any], path: str) -> None:
    assert_found("openai", BASE, {**BASE, **change}, path)


def test_informational_keys_are_notes() -> None:
    found = request_findings(get_profile("openai"), BASE, {**BASE, "user": "u1"})
    assert [(f.path, f.verdict) for f in found] == [("user", "note")]


def test_read_splits_conversation_tools_and_options() -> None:
    req = read({**BASE, "stream": False, "temperature": 0.2})
    assert list(req.conversation) == ["messages"]
    assert list(req.tools) == ["tools"]
    assert req.options == {"model": "m", "temperature": 0.2}
