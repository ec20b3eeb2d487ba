"""Tool-call id rules: proxy suffixes and the target provider's id pattern."""

from __future__ import annotations

import re

from conformance.model import AssistantMessage, ToolCallBlock, ToolResultMessage
from tests.runtime.builders import assistant, call, dumped, result, rules, run, user


def _ids(messages: list) -> tuple[list[str], list[str]]:  # type: ignore[type-arg]
    calls = [
        b.id for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolCallBlock)
    ]
    results = [m.tool_call_id for m in messages if isinstance(m, ToolResultMessage)]
    return calls, results


def test_thought_suffix_is_stripped_from_calls_and_results() -> None:
    messages = [user("q"), assistant(call("call_1__thought__QUJD")), result("call_1__thought__QUJD"), user("n")]
    res = run(messages)
    assert _ids(res.messages) == (["call_1"], ["call_1"])
    assert rules(res) == ["strip_thought_suffix", "strip_thought_suffix"]


def test_anthropic_charset_and_length() -> None:
    long_id = "x" * 80
    messages = [
        user("q"),
        assistant(call("call.1:a"), call(long_id), call("toolu_ok-1")),
        result("call.1:a"),
        result(long_id),
        result("toolu_ok-1"),
        user("n"),
    ]
    res = run(messages, "anthropic")
    calls, results = _ids(res.messages)
    assert calls == results
    assert calls[0] == "call_1_a"
    assert calls[2] == "toolu_ok-1"
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", x) for x in calls)
    assert rules(res) == ["rewrite_tool_ids"] * 4


def test_mistral_ids_are_nine_alphanumerics_and_deterministic() -> None:
    messages = [
        user("q"),
        assistant(call("call_0fypS1hVX"), call("toolu_01")),
        result("toolu_01"),
        result("call_0fypS1hVX"),
        user("n"),
    ]
    first = run(messages, "mistral")
    second = run(messages, "mistral")
    calls, results = _ids(first.messages)
    assert all(re.fullmatch(r"[a-zA-Z0-9]{9}", x) for x in calls)
    assert sorted(calls) == sorted(results)
    assert results == [calls[1], calls[0]]
    assert len(set(calls)) == 2
    assert dumped(first.messages) == dumped(second.messages)


def test_sanitized_id_that_collides_falls_back_to_a_hash() -> None:
    messages = [user("q"), assistant(call("a.b"), call("a_b")), result("a.b"), result("a_b"), user("n")]
    calls, results = _ids(run(messages, "anthropic").messages)
    assert calls[1] == "a_b"
    assert calls[0] != "a_b"
    assert results == calls


def test_profiles_without_a_pattern_keep_ids() -> None:
    messages = [user("q"), assistant(call("call.1:a")), result("call.1:a"), user("n")]
    assert run(messages, "openai").actions == []
