"""The deprecated functions API: `message.function_call` / `delta.function_call`."""

from __future__ import annotations

from conformance.model import TextBlock, ToolCallBlock
from tests.codecs.openai_chat.helpers import chunk, decode_json, decode_stream, sse


def _completion(message: dict[str, object], finish: str) -> dict[str, object]:
    return {
        "id": "c",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


def test_a_whole_function_call_is_a_tool_call() -> None:
    msg = decode_json(
        _completion(
            {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": '{"a":1}'}},
            "function_call",
        )
    ).message
    assert msg is not None
    assert msg.content == [ToolCallBlock(id="call_0", name="f", arguments={"a": 1})]
    assert (msg.stop_reason, msg.raw_stop_reason) == ("tool_use", "function_call")


def test_streamed_fragments_join_into_one_call() -> None:
    body = sse(
        chunk({"role": "assistant", "function_call": {"name": "f", "arguments": ""}}),
        chunk({"function_call": {"arguments": '{"a"'}}),
        chunk({"function_call": {"arguments": ":1}"}}),
        chunk({}, "function_call"),
    )
    msg = decode_stream(body).message
    assert msg is not None and msg.content == [ToolCallBlock(id="call_0", name="f", arguments={"a": 1})]


def test_an_empty_placeholder_beside_tool_calls_is_not_a_call() -> None:
    """Some servers fill `function_call: {name: "", arguments: ""}` on every message."""
    msg = decode_json(
        _completion(
            {
                "role": "assistant",
                "content": "hi",
                "function_call": {"name": "", "arguments": ""},
                "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "g", "arguments": "{}"}}],
            },
            "tool_calls",
        )
    ).message
    assert msg is not None
    assert msg.content == [TextBlock(text="hi"), ToolCallBlock(id="t1", name="g", arguments={})]
