"""Responses API requests compared as the provider reads them: each equivalence, and a real difference."""

from __future__ import annotations

from typing import Any

import pytest

from tests.codecs.request_cases import assert_found, assert_same

TOOL = {"type": "function", "name": "f", "parameters": {"type": "object", "properties": {}}}
BASE: dict[str, Any] = {"model": "m", "input": [{"role": "user", "content": "hi"}], "tools": [TOOL]}

SAME = {
    "stream false": {"stream": False},
    "store true": {"store": True},
    "tool_choice auto": {"tool_choice": "auto"},
    "parallel_tool_calls true": {"parallel_tool_calls": True},
    "strict true": {"tools": [{**TOOL, "strict": True}]},
    "truncation disabled": {"truncation": "disabled"},
    "typed message item": {"input": [{"type": "message", "role": "user", "content": "hi"}]},
}


@pytest.mark.parametrize("change", SAME.values(), ids=list(SAME))
def test_an_equivalent_spelling_matches(change: dict[str, Any]) -> None:
    assert_same("openai_responses", BASE, {**BASE, **change})


def test_developer_reads_as_system() -> None:
    assert_same(
        "openai_responses",
        {**BASE, "input": [{"role": "system", "content": "s"}]},
        {**BASE, "input": [{"role": "developer", "content": "s"}]},
    )


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"store": False}, "store"),
        ({"tools": [{**TOOL, "strict": False}]}, "tools[0].strict"),
        ({"tools": []}, "tools"),
    ],
)
def test_a_real_difference_is_still_found(change: dict[str, Any], path: str) -> None:
    assert_found("openai_responses", BASE, {**BASE, **change}, path)
