"""The optional Gemini-proxy text-only mode."""

from __future__ import annotations

from conformance.model import AssistantMessage, TextBlock, UserMessage
from conformance.runtime.repair import RepairOptions
from tests.runtime.builders import assistant, call, result, run, thinking, user

PROXY = RepairOptions(gemini_proxy=True)


def test_proxy_mode_flattens_calls_and_results_to_text() -> None:
    messages = [
        user("weather?"),
        assistant(thinking(), "checking", call("c1", city="Paris"), provider="gemini", model="gemini-2.5-flash"),
        result("c1", "18C"),
        user("thanks"),
    ]
    res = run(messages, "gemini", options=PROXY)
    assert [m.role for m in res.messages] == ["user", "assistant", "user"]
    flat = res.messages[1]
    assert isinstance(flat, AssistantMessage)
    assert flat.content == [TextBlock(text='checking\n\n[tool_call get_weather c1] {"city": "Paris"}')]
    merged = res.messages[2]
    assert isinstance(merged, UserMessage)
    assert [b.text for b in merged.content if isinstance(b, TextBlock)] == [
        "[tool_result get_weather c1]\n18C",
        "thanks",
    ]
    assert any("thinking block dropped" in w for w in res.warnings)


def test_proxy_mode_marks_error_results() -> None:
    messages = [user("q"), assistant(call("c1")), result("c1", "bad", is_error=True), user("n")]
    res = run(messages, "openai", options=PROXY)
    first = res.messages[2]
    assert isinstance(first, UserMessage)
    assert first.content[0] == TextBlock(text="[tool_result get_weather c1 error]\nbad")


def test_proxy_mode_off_by_default() -> None:
    messages = [user("q"), assistant(call("c1")), result("c1"), user("n")]
    assert [m.role for m in run(messages, "gemini").messages] == ["user", "assistant", "tool_result", "user"]


def test_proxy_mode_merges_assistant_turns_into_one_text_and_is_stable() -> None:
    messages = [user("q"), assistant(thinking(), "first"), assistant(thinking(), "second"), user("n")]
    once = run(messages, "anthropic", options=PROXY)
    merged = once.messages[1]
    assert isinstance(merged, AssistantMessage)
    assert merged.content == [TextBlock(text="first\n\nsecond")]  # one plain text, as a proxy takes it
    assert run(once.messages, "anthropic", options=PROXY).messages == once.messages  # repairing again changes nothing
