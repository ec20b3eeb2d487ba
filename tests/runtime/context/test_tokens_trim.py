"""Token accounting and history trimming: pure functions over canonical messages."""

from __future__ import annotations

import math

import pytest

from conformance.model import AssistantMessage, Message, ToolCallBlock, ToolResultMessage, Usage, UserMessage
from conformance.runtime.context.tokens import count_tokens, estimate_tokens, exact_tokens
from conformance.runtime.context.trim import TrimSettings, split_history, trim_history, user_turns
from tests.runtime.builders import assistant, call, result, system, thinking, user


def history(turns: int, size: int = 400) -> list[Message]:
    out: list[Message] = [system("Be brief.")]
    for i in range(turns):
        out += [
            user(f"question {i}"),
            assistant(call(f"c{i}", "read", n=i)),
            result(f"c{i}", "x" * size, name="read"),
            assistant(f"answer {i} " + "y" * size),
        ]
    return out


def pairs_intact(messages: list[Message]) -> bool:
    calls = {
        b.id for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolCallBlock)
    }
    results = {m.tool_call_id for m in messages if isinstance(m, ToolResultMessage)}
    return calls == results


def test_count_uses_the_last_usage_as_baseline() -> None:
    base: list[Message] = [user("hi"), assistant("hello", usage=Usage(input_tokens=1000, output_tokens=20))]
    added: list[Message] = [user("x" * 400)]
    count = count_tokens([*base, *added])
    assert count.source == "usage"
    assert count.baseline == 1020
    assert count.estimated == math.ceil(
        len('[{"content":[{"text":"' + "x" * 400 + '","type":"text"}],"role":"user"}]') / 4
    )
    assert count.tokens == 1020 + count.estimated


def test_count_without_usage_is_the_estimate() -> None:
    messages: list[Message] = [user("hi"), assistant("hello")]
    count = count_tokens(messages)
    assert (count.source, count.tokens) == ("estimate", estimate_tokens(messages))


def test_exact_count_is_none_or_a_positive_number() -> None:
    value = exact_tokens([user("hello world")], "gpt-4o")
    if value is None:
        pytest.skip("tiktoken or its cached o200k_base encoding is not available")
    assert value > 3


def test_user_turns_start_on_user_messages() -> None:
    turns = user_turns(history(3)[1:])
    assert [len(t) for t in turns] == [4, 4, 4]
    assert all(isinstance(t[0], UserMessage) for t in turns)


def test_under_budget_nothing_changes() -> None:
    messages = history(2, size=10)
    out = trim_history(messages, TrimSettings(max_history_tokens=10_000))
    assert out.messages == messages and out.actions == []


def test_derived_caps_shrink_with_age_and_keep_pairs() -> None:
    messages = [*history(4), user("and now?")]
    out = trim_history(messages, TrimSettings(max_history_tokens=100_000 // 100, keep_recent_user_turns=1))
    assert pairs_intact(out.messages)
    assert out.tokens_after < out.tokens_before
    assert out.messages[0] == messages[0]
    assert out.messages[-1] == messages[-1]


def test_progressive_caps_give_older_turns_less() -> None:
    messages = [*history(3), user("q"), assistant(call("cz", "read")), result("cz", "z" * 50, name="read")]
    out = trim_history(messages, TrimSettings(max_history_tokens=600))
    kept = {a["index"]: a["chars"] for a in out.actions if a["action"] == "truncate"}
    # the tool result of turn 0 (index 3) is cut more than the one of turn 2 (index 11)
    assert kept[3] > kept[11]
    assert not any(a["action"] == "drop" for a in out.actions)  # a continuation drops nothing


def test_hard_cap_drops_oldest_turns_and_stops_when_it_fits() -> None:
    messages = [*history(6, size=200), user("final")]
    settings = TrimSettings(max_history_tokens=900, caps=(400,))
    out = trim_history(messages, settings)
    dropped = [a for a in out.actions if a["action"] == "drop"]
    assert dropped and dropped[0]["index"] == 1
    assert len(dropped) < 6  # some older turns survive
    assert isinstance(out.messages[1], UserMessage)
    assert out.tokens_after <= 900
    assert pairs_intact(out.messages)


def test_older_thinking_is_dropped_recent_kept() -> None:
    messages: list[Message] = [
        system("s"),
        user("a" * 500),
        assistant(thinking("t"), "b" * 500),
        user("c"),
        assistant(thinking("u"), call("k", "read")),
        result("k", "r", name="read"),
    ]
    out = trim_history(messages, TrimSettings(max_history_tokens=50, caps=(64,)))
    assert not any(b.type == "thinking" for b in out.messages[2].content)
    assert out.messages[4] == messages[4]


def test_split_keeps_the_current_turn_on_continuation_even_with_zero() -> None:
    messages = history(2)[:-1]  # ends with a tool result
    _, older, recent = split_history(messages, 0)
    assert len(recent) == 1 and len(older) == 1
