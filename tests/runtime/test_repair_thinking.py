"""Thinking rules: foreign thinking, signatures, redacted thinking, order."""

from __future__ import annotations

from conformance.model import AssistantMessage, RedactedThinkingBlock, TextBlock
from conformance.runtime.repair import RepairOptions
from tests.runtime.builders import assistant, call, dumped, result, rules, run, thinking, user

CLAUDE = {"provider": "anthropic", "model": "claude-sonnet-4-5"}
GEMINI = {"provider": "gemini", "model": "gemini-2.5-flash"}


def test_signed_thinking_goes_back_to_same_provider_and_model() -> None:
    messages = [user("q"), assistant(thinking(), "a", **CLAUDE), user("q2")]
    res = run(messages, "anthropic")
    assert dumped(res.messages) == dumped(messages)
    assert res.actions == []


def test_signed_thinking_dropped_for_another_model() -> None:
    messages = [user("q"), assistant(thinking(), "a", **CLAUDE), user("q2")]
    res = run(messages, "anthropic", model="claude-opus-4-1")
    assert dumped(res.messages) == dumped([user("q"), assistant("a", **CLAUDE), user("q2")])
    assert rules(res) == ["foreign_thinking"]
    assert res.warnings


def test_signed_thinking_dropped_for_another_provider() -> None:
    messages = [user("q"), assistant(thinking(), "a", **CLAUDE), user("q2")]
    res = run(messages, "gemini")
    assert dumped(res.messages) == dumped([user("q"), assistant("a", **CLAUDE), user("q2")])


def test_foreign_thinking_as_text_option() -> None:
    messages = [user("q"), assistant(thinking("because"), "a", **CLAUDE), user("q2")]
    res = run(messages, "openai", options=RepairOptions(foreign_thinking="text"))
    converted = res.messages[1]
    assert isinstance(converted, AssistantMessage)
    assert converted.content == [TextBlock(text="because"), TextBlock(text="a")]
    assert res.warnings == []


def test_redacted_thinking_never_crosses_providers_even_as_text() -> None:
    messages = [user("q"), assistant(RedactedThinkingBlock(data="opaque"), "a", **CLAUDE), user("q2")]
    res = run(messages, "openai", options=RepairOptions(foreign_thinking="text"))
    assert dumped(res.messages) == dumped([user("q"), assistant("a", **CLAUDE), user("q2")])
    assert res.warnings


def test_redacted_thinking_kept_for_same_origin() -> None:
    messages = [user("q"), assistant(RedactedThinkingBlock(data="opaque"), "a", **CLAUDE)]
    assert run(messages, "anthropic").actions == []


def test_unsigned_thinking_dropped_where_signatures_are_required() -> None:
    messages = [user("q"), assistant(thinking(signature=None), "a", **CLAUDE)]
    res = run(messages, "anthropic")
    assert dumped(res.messages) == dumped([user("q"), assistant("a", **CLAUDE)])


def test_unsigned_thinking_of_unknown_origin_kept_for_openai() -> None:
    messages = [user("q"), assistant(thinking(signature=None), "a")]
    assert run(messages, "openai").actions == []


def test_reasoning_not_sent_back_where_the_profile_forbids_it() -> None:
    origin = {"provider": "deepseek", "model": "deepseek-reasoner"}
    messages = [user("q"), assistant(thinking(signature=None), "a", **origin)]
    res = run(messages, "deepseek")
    assert dumped(res.messages) == dumped([user("q"), assistant("a", **origin)])


def test_foreign_signatures_on_text_and_calls_are_removed() -> None:
    signed_text = TextBlock(text="a", signature="s1")
    signed_call = call("c1").model_copy(update={"signature": "s2"})
    messages = [user("q"), assistant(signed_text, signed_call, **GEMINI), result("c1"), user("q2")]
    res = run(messages, "openai")
    message = res.messages[1]
    assert isinstance(message, AssistantMessage)
    assert all(getattr(b, "signature", None) is None for b in message.content)
    assert rules(res) == ["foreign_thinking", "foreign_thinking"]
    same = run(messages, "gemini")
    assert dumped(same.messages) == dumped(messages)


def test_thinking_moves_before_text_and_tool_calls() -> None:
    messages = [user("q"), assistant("a", call("c1"), thinking(), **CLAUDE), result("c1"), user("q2")]
    res = run(messages, "anthropic")
    assert dumped(res.messages) == dumped(
        [user("q"), assistant(thinking(), "a", call("c1"), **CLAUDE), result("c1"), user("q2")]
    )
    assert rules(res) == ["thinking_first"]


def test_an_assistant_turn_with_thinking_alone_is_removed_with_a_warning() -> None:
    # its answer was empty: a reasoning item must lead to an item (Responses), and no provider
    # takes a turn that answers nothing
    messages = [user("q"), assistant(thinking(), "  ", provider="openai_responses"), user("again")]
    res = run(messages, "openai_responses")
    assert dumped(res.messages) == dumped([user("q"), user("again")])  # Responses takes two user turns
    assert rules(res) == ["drop_empty_blocks", "drop_thinking_only"]
    assert res.warnings == [
        "drop_thinking_only (message 1): assistant message with 1 thinking block(s) and no answer removed"
    ]
