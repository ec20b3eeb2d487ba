"""Tool-result rules, one test per rule, expectations from the documented provider rules."""

from __future__ import annotations

from conformance.model import AssistantMessage, ProviderError, TextBlock, ToolResultMessage
from conformance.runtime.repair.results import MISSING_RESULT_TEXT
from tests.runtime.builders import assistant, call, dumped, result, rules, run, user


def test_orphan_result_is_dropped_with_a_warning() -> None:
    messages = [user("hi"), result("call_ghost"), assistant("hello")]
    res = run(messages)
    assert dumped(res.messages) == dumped([user("hi"), assistant("hello")])
    assert rules(res) == ["drop_orphan_tool_result"]
    assert res.actions[0].index == 1
    assert len(res.warnings) == 1
    assert "call_ghost" in res.warnings[0]


def test_result_before_its_call_is_an_orphan() -> None:
    messages = [user("hi"), result("c1"), assistant(call("c1")), result("c1"), user("next")]
    res = run(messages)
    assert dumped(res.messages) == dumped([user("hi"), assistant(call("c1")), result("c1"), user("next")])


def test_missing_result_is_synthesized_after_existing_results() -> None:
    messages = [user("hi"), assistant(call("c1"), call("c2")), result("c1"), user("and?")]
    res = run(messages)
    synthesized = res.messages[3]
    assert isinstance(synthesized, ToolResultMessage)
    assert synthesized.tool_call_id == "c2"
    assert synthesized.is_error
    assert synthesized.tool_name == "get_weather"
    assert synthesized.content == [TextBlock(text=MISSING_RESULT_TEXT)]
    assert dumped(res.messages[:3]) == dumped(messages[:3])
    assert res.messages[4] == messages[3]
    assert rules(res) == ["synthesize_missing_result"]
    assert res.actions[0].index == 1


def test_missing_result_before_next_assistant_turn() -> None:
    messages = [user("hi"), assistant(call("c1")), assistant("done")]
    res = run(messages)
    assert [m.role for m in res.messages] == ["user", "assistant", "tool_result", "assistant"]


def test_pending_calls_at_the_end_are_left_alone() -> None:
    messages = [user("hi"), assistant(call("c1"), call("c2")), result("c1")]
    res = run(messages)
    assert dumped(res.messages) == dumped(messages)
    assert res.actions == []


def test_duplicate_results_keep_first_non_error() -> None:
    messages = [
        user("hi"),
        assistant(call("c1")),
        result("c1", "boom", is_error=True),
        result("c1", "fine"),
        result("c1", "again"),
        user("next"),
    ]
    res = run(messages)
    assert dumped(res.messages) == dumped([user("hi"), assistant(call("c1")), result("c1", "fine"), user("next")])
    assert rules(res) == ["dedupe_tool_results", "dedupe_tool_results"]
    assert all("first non-error" in a.detail for a in res.actions)
    assert len(res.warnings) == 2


def test_duplicate_results_all_errors_keep_first() -> None:
    messages = [user("hi"), assistant(call("c1")), result("c1", "a", is_error=True), result("c1", "b", is_error=True)]
    res = run(messages)
    assert dumped(res.messages) == dumped(messages[:3])
    assert "all are errors" in res.actions[0].detail


def test_failed_turn_is_removed_with_its_results() -> None:
    failed = assistant("partial", call("c9"), stop_reason="error", error=ProviderError(kind="stream_interrupted"))
    messages = [user("hi"), failed, result("c9"), user("try again"), assistant("ok")]
    res = run(messages)
    assert dumped(res.messages) == dumped([user("hi"), user("try again"), assistant("ok")])
    assert rules(res) == ["drop_failed_turn", "drop_failed_turn"]
    assert len(res.warnings) == 2


def test_aborted_turn_is_removed() -> None:
    messages = [user("hi"), assistant("half", stop_reason="aborted"), user("again"), assistant("ok")]
    res = run(messages)
    assert dumped(res.messages) == dumped([user("hi"), user("again"), assistant("ok")])


def test_error_field_alone_marks_a_failed_turn() -> None:
    messages = [user("hi"), assistant("x", error=ProviderError(kind="server")), user("again"), assistant("ok")]
    assert rules(run(messages))[0] == "drop_failed_turn"


def test_displaced_result_moves_next_to_its_call() -> None:
    messages = [user("hi"), assistant(call("c1")), user("wait"), result("c1"), assistant("ok")]
    res = run(messages)
    assert dumped(res.messages) == dumped(
        [user("hi"), assistant(call("c1")), result("c1"), user("wait"), assistant("ok")]
    )
    assert rules(res) == ["place_tool_result"]


def test_reused_id_is_renamed_with_its_result() -> None:
    messages = [
        user("a"),
        assistant(call("call_0")),
        result("call_0", "first"),
        assistant(call("call_0")),
        result("call_0", "second"),
        assistant("done"),
    ]
    res = run(messages)
    second_call = res.messages[3]
    assert isinstance(second_call, AssistantMessage)
    assert second_call.content[0].id == "call_0_2"  # type: ignore[union-attr]
    fourth = res.messages[4]
    assert isinstance(fourth, ToolResultMessage)
    assert fourth.tool_call_id == "call_0_2"
    assert fourth.content == [TextBlock(text="second")]
    assert rules(res) == ["unique_call_ids", "unique_call_ids"]


def test_same_id_twice_in_one_message_pairs_results_in_order() -> None:
    messages = [user("a"), assistant(call("x"), call("x")), result("x", "1"), result("x", "2"), user("b")]
    res = run(messages)
    ids = [m.tool_call_id for m in res.messages if isinstance(m, ToolResultMessage)]
    assert ids == ["x", "x_2"]
