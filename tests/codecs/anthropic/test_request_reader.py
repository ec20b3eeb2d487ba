"""Messages API requests compared as Anthropic reads them: each equivalence, and a real difference."""

from __future__ import annotations

from typing import Any

import pytest

from tests.codecs.request_cases import assert_found, assert_same

TOOL = {"name": "f", "input_schema": {"type": "object", "properties": {}}}
BASE: dict[str, Any] = {
    "model": "m",
    "max_tokens": 10,
    "system": [{"type": "text", "text": "s"}],
    "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    "tools": [TOOL],
}

SAME = {
    "system as a string": {"system": "s"},
    "content as a string": {"messages": [{"role": "user", "content": "hi"}]},
    "stream false": {"stream": False},
    "tool_choice auto with tools": {"tool_choice": {"type": "auto"}},
    "required []": {"tools": [{**TOOL, "input_schema": {**TOOL["input_schema"], "required": []}}]},
    "strict false": {"tools": [{**TOOL, "strict": False}]},
}


@pytest.mark.parametrize("change", SAME.values(), ids=list(SAME))
def test_an_equivalent_spelling_matches(change: dict[str, Any]) -> None:
    assert_same("anthropic", BASE, {**BASE, **change})


def test_tool_result_content_as_a_string_is_one_text_block() -> None:
    block = {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "18C"}]}
    expected = {**BASE, "messages": [{"role": "user", "content": [block]}]}
    actual = {**BASE, "messages": [{"role": "user", "content": [{**block, "content": "18C", "is_error": False}]}]}
    assert_same("anthropic", expected, actual)


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"system": "other"}, "system[0].text"),
        ({"tools": []}, "tools"),
        ({"tool_choice": {"type": "any"}}, "tool_choice"),
        ({"max_tokens": 11}, "max_tokens"),
    ],
)
def test_a_real_difference_is_still_found(change: dict[str, Any], path: str) -> None:
    assert_found("anthropic", BASE, {**BASE, **change}, path)
