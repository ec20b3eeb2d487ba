"""Turn-order, coalescing and empty-content rules."""

from __future__ import annotations

from conformance.model import AssistantMessage, ImageBlock, TextBlock, UserMessage
from conformance.runtime.repair.turns import PLACEHOLDER_ASSISTANT_TEXT, PLACEHOLDER_USER_TEXT
from tests.runtime.builders import assistant, call, dumped, result, rules, run, system, user


def test_leading_assistant_gets_a_placeholder_user_turn() -> None:
    messages = [system("be terse"), assistant("hello there"), user("hi")]
    res = run(messages)
    assert dumped(res.messages) == dumped(
        [system("be terse"), user(PLACEHOLDER_USER_TEXT), assistant("hello there"), user("hi")]
    )
    assert rules(res) == ["first_turn_user"]
    assert res.actions[0].index == 1
    assert res.warnings == []


def test_leading_assistant_with_tool_calls_keeps_its_results() -> None:
    messages = [assistant(call("c1")), result("c1"), user("thanks")]
    res = run(messages)
    assert [m.role for m in res.messages] == ["user", "assistant", "tool_result", "user"]


def test_openai_keeps_same_role_neighbours() -> None:
    messages = [user("a"), user("b"), assistant("c")]
    res = run(messages, "openai")
    assert dumped(res.messages) == dumped(messages)


def test_text_only_neighbours_merge_for_alternating_profiles() -> None:
    messages = [user("a"), user("b"), assistant("c"), assistant("d")]
    for provider in ("anthropic", "gemini"):
        res = run(messages, provider)
        assert dumped(res.messages) == dumped([user("a", "b"), assistant("c", "d")])
        assert rules(res) == ["merge_same_role", "merge_same_role"]


def test_merged_assistant_keeps_last_stop_reason() -> None:
    messages = [user("a"), assistant("c", stop_reason="length"), assistant("d", stop_reason="stop")]
    merged = run(messages, "anthropic").messages[1]
    assert isinstance(merged, AssistantMessage)
    assert merged.stop_reason == "stop"


def test_tool_call_neighbour_is_bridged_not_merged() -> None:
    messages = [user("a"), assistant("let me look"), assistant(call("c1")), result("c1"), user("b")]
    res = run(messages, "anthropic")
    assert [m.role for m in res.messages] == ["user", "assistant", "user", "assistant", "tool_result", "user"]
    bridge = res.messages[2]
    assert isinstance(bridge, UserMessage)
    assert bridge.content[0] == TextBlock(text=PLACEHOLDER_USER_TEXT)
    assert rules(res) == ["bridge_same_role"]


def test_image_user_neighbour_is_bridged() -> None:
    picture = UserMessage(content=[ImageBlock(media_type="image/png", data="iVBORw0KGgo=")])
    messages = [user("look"), picture, assistant("nice")]
    res = run(messages, "gemini")
    assert [m.role for m in res.messages] == ["user", "assistant", "user", "assistant"]
    assert res.messages[1].content == [TextBlock(text=PLACEHOLDER_ASSISTANT_TEXT)]


def test_tool_results_are_never_merged() -> None:
    messages = [user("a"), assistant(call("c1"), call("c2")), result("c1"), result("c2"), user("b")]
    res = run(messages, "gemini")
    assert dumped(res.messages) == dumped(messages)


def test_empty_text_blocks_removed_and_tool_calls_alone_kept() -> None:
    messages = [user("hi", ""), assistant(" ", call("c1")), result("c1"), user("b")]
    res = run(messages)
    assert dumped(res.messages) == dumped([user("hi"), assistant(call("c1")), result("c1"), user("b")])
    assert rules(res) == ["drop_empty_blocks", "drop_empty_blocks"]


def test_message_left_empty_is_removed() -> None:
    messages = [user("hi"), assistant(""), user("again"), AssistantMessage(content=[])]
    res = run(messages)
    assert dumped(res.messages) == dumped([user("hi"), user("again")])
    assert "drop_empty_message" in rules(res)


def test_empty_signed_text_is_kept_for_its_signature() -> None:
    signed = TextBlock(text="", signature="gem-sig")
    messages = [user("hi"), assistant("ok", signed, provider="gemini", model="gemini-2.5-flash")]
    res = run(messages, "gemini")
    assert dumped(res.messages) == dumped(messages)


def test_empty_tool_result_is_kept() -> None:
    empty = result("c1").model_copy(update={"content": []})
    messages = [user("hi"), assistant(call("c1")), empty, user("b")]
    assert dumped(run(messages).messages) == dumped(messages)
