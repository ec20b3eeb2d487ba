"""Prompt-based tool calls parsed from the reply, for models without native tool calling."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.codecs.ollama import decode
from conformance.codecs.ollama.prompt_tools import extract_calls, render_calls
from conformance.model import AssistantMessage, TextBlock, ToolCallBlock, dump
from tests.codecs.ollama.helpers import PROFILE, cuts, ndjson, run

REPLY = (
    'I will look it up.\n```json\n{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}},'
    ' {"name": "get_time", "arguments": {}}]}\n```\n'
)


def body_for(model: str, content: str) -> object:
    return {
        "model": model,
        "message": {"role": "assistant", "content": content},
        "done": True,
        "done_reason": "stop",
    }


def test_fenced_block_becomes_tool_calls_for_prompt_tool_models() -> None:
    message = dump(decode(body_for("gemma3:4b", REPLY), PROFILE))
    assert message["content"] == [
        {"type": "text", "text": "I will look it up."},
        {"type": "tool_call", "id": "call_0", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"type": "tool_call", "id": "call_1", "name": "get_time", "arguments": {}},
    ]
    assert (message["stop_reason"], message["raw_stop_reason"]) == ("tool_use", "stop")


def test_native_models_keep_the_text() -> None:
    message = dump(decode(body_for("llama3.2", REPLY), PROFILE))
    assert message["content"] == [{"type": "text", "text": REPLY}]
    assert message["stop_reason"] == "stop"


def test_invalid_json_in_the_fence_stays_text() -> None:
    reply = 'Sure.\n```json\n{"tool_calls": [{"name": "get_weather", "arguments": {"city": }]}\n```'
    message = dump(decode(body_for("gemma3", reply), PROFILE))
    assert message["content"] == [{"type": "text", "text": reply}]
    assert message["stop_reason"] == "stop"


def test_json_of_another_shape_stays_text() -> None:
    reply = '```json\n{"name": "Alice", "city": "Paris"}\n```'
    assert dump(decode(body_for("gemma3", reply), PROFILE))["content"] == [{"type": "text", "text": reply}]


def test_string_arguments_are_parsed_and_bad_ones_kept_raw() -> None:
    reply = (
        '```json\n{"tool_calls": [{"name": "a", "arguments": "{\\"x\\": 1}"}, {"name": "b", "arguments": "x"}]}\n```'
    )
    content = dump(decode(body_for("gemma3", reply), PROFILE))["content"]
    assert content == [
        {"type": "tool_call", "id": "call_0", "name": "a", "arguments": {"x": 1}},
        {"type": "tool_call", "id": "call_1", "name": "b", "arguments": {}, "raw_arguments": "x"},
    ]


def test_rendered_history_parses_back() -> None:
    calls = [ToolCallBlock(id="call_0", name="get_weather", arguments={"city": "Paris"})]
    message = extract_calls(AssistantMessage(content=[TextBlock(text=render_calls(calls))]))
    assert [(b.name, b.arguments) for b in message.content if isinstance(b, ToolCallBlock)] == [
        ("get_weather", {"city": "Paris"})
    ]


PIECES = (
    "I will look it up.\n``",
    '`json\n{"tool_calls": [{"name": "get_w',
    'eather", "arguments": {"city": "Paris"}}]}\n```',
)
STREAM = ndjson(
    *(orjson.dumps({"model": "gemma3", "message": {"role": "assistant", "content": p}}).decode() for p in PIECES),
    '{"model":"gemma3","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}',
)


def test_stream_and_json_agree() -> None:
    _, streamed = run(STREAM)
    whole = decode(body_for("gemma3", "".join(PIECES)), PROFILE)
    assert dump(streamed) == dump(whole)
    assert streamed.stop_reason == "tool_use"


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_stream_any_split(data: st.DataObject) -> None:
    _, expected = run(STREAM)
    _, message = run(STREAM, data.draw(cuts(STREAM)))
    assert dump(message) == dump(expected)
