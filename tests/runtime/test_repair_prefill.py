"""A final assistant text (a prefill) and the providers that reject trailing whitespace on it."""

from __future__ import annotations

from conformance.model import TextBlock
from tests.runtime.builders import assistant, call, rules, run, user


def test_anthropic_prefill_loses_trailing_whitespace_only_at_the_end() -> None:
    res = run([user("q"), assistant("Earlier. "), user("more"), assistant("Start of answer \n\t")], "anthropic")
    assert rules(res) == ["trim_prefill"]
    assert res.messages[-1].content == [TextBlock(text="Start of answer")]
    assert res.messages[1].content == [TextBlock(text="Earlier. ")]  # history is left alone
    assert res.warnings == []


def test_whitespace_only_prefill_is_then_removed_as_empty() -> None:
    res = run([user("q"), assistant("  ")], "anthropic")
    assert rules(res) == ["trim_prefill", "drop_empty_blocks", "drop_empty_message"]
    assert len(res.messages) == 1


def test_nothing_to_trim() -> None:
    assert rules(run([user("q"), assistant("done")], "anthropic")) == []
    assert rules(run([user("q"), assistant(call("call_1"))], "anthropic")) == []  # ends with a call
    assert rules(run([user("q"), assistant("keep ")], "openai")) == []  # the profile accepts it
