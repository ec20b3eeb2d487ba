"""Ollama NDJSON streaming (§5.3, §9): increments, whole tool calls, `done: true`, error lines.

Every body also runs under arbitrary re-chunking (`test_any_split_gives_the_same_result`).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.model import dump
from tests.codecs.ollama.helpers import cuts, ndjson, outcome, run

TEXT = ndjson(
    '{"model":"qwen3","created_at":"t","message":{"role":"assistant","content":"","thinking":"Let me"},"done":false}',
    '{"model":"qwen3","created_at":"t","message":{"role":"assistant","content":"","thinking":" count."},"done":false}',
    '{"model":"qwen3","created_at":"t","message":{"role":"assistant","content":"1, 2, "},"done":false}',
    '{"model":"qwen3","created_at":"t","message":{"role":"assistant","content":"3 — fertig"},"done":false}',
    '{"model":"qwen3","created_at":"t","message":{"role":"assistant","content":""},"done":true,'
    '"done_reason":"stop","prompt_eval_count":21,"eval_count":9}',
)

TOOLS = ndjson(
    '{"model":"qwen3","message":{"role":"assistant","content":"","tool_calls":[{"function":{"index":0,'
    '"name":"get_weather","arguments":{"city":"Paris"}}}]},"done":false}',
    '{"model":"qwen3","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_zz9","function":'
    '{"index":1,"name":"get_time","arguments":{"tz":"CET"}}}]},"done":false}',
    '{"model":"qwen3","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop",'
    '"prompt_eval_count":40,"eval_count":12}',
)

WITH_BLANK_LINES = TEXT.replace(b"}\n{", b"}\n\n{")

ERROR_LINE = ndjson(
    '{"model":"qwen3","message":{"role":"assistant","content":"Once upon"},"done":false}',
    '{"error":"an error was encountered while running the model"}',
)

CUT = ndjson('{"model":"qwen3","message":{"role":"assistant","content":"Hel"},"done":false}') + (
    b'{"model":"qwen3","message":{"role":"assistant","content":"lo"'
)

BAD_MIDDLE = ndjson(
    '{"model":"qwen3","message":{"role":"assistant","content":"a"},"done":false}',
    '{"model":"qwen3","message":',
    '{"model":"qwen3","message":{"role":"assistant","content":"b"},"done":true,"done_reason":"stop"}',
)

BODIES = [TEXT, TOOLS, WITH_BLANK_LINES, ERROR_LINE, CUT, BAD_MIDDLE]


def test_thinking_and_text_increments() -> None:
    events, message = run(TEXT)
    assert dump(message) == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Let me count."},
            {"type": "text", "text": "1, 2, 3 — fertig"},
        ],
        "stop_reason": "stop",
        "raw_stop_reason": "stop",
        "usage": {
            "input_tokens": 21,
            "output_tokens": 9,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
        },
        "provider": "ollama",
        "model": "qwen3",
    }
    assert [e.type for e in events] == [
        "start",
        "thinking_delta",
        "thinking_delta",
        "text_delta",
        "text_delta",
        "done",
    ]


def test_whole_tool_calls_ids_kept_or_made_deterministic() -> None:
    _, message = run(TOOLS)
    assert dump(message)["content"] == [
        {"type": "tool_call", "id": "call_0", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"type": "tool_call", "id": "call_zz9", "name": "get_time", "arguments": {"tz": "CET"}},
    ]
    assert message.stop_reason == "tool_use"


def test_blank_lines_between_records_are_not_errors() -> None:
    _, plain = run(TEXT)
    _, spaced = run(WITH_BLANK_LINES)
    assert dump(spaced) == dump(plain)


def test_error_line_in_a_200_stream_keeps_the_partial() -> None:
    result = outcome(200, ERROR_LINE, stream=True)
    assert result.error is not None
    assert (result.error.kind, result.error.message) == (
        "server",
        "an error was encountered while running the model",
    )
    assert result.partial is not None
    assert dump(result.partial)["content"] == [{"type": "text", "text": "Once upon"}]


def test_stream_without_done_is_interrupted() -> None:
    result = outcome(200, CUT, stream=True)
    assert result.error is not None
    assert result.error.kind == "stream_interrupted"
    assert result.partial is not None
    assert dump(result.partial)["content"] == [{"type": "text", "text": "Hel"}]


def test_invalid_line_in_the_middle_names_the_line_and_loses_nothing_after_it() -> None:
    _, message = run(BAD_MIDDLE)
    assert message.error is not None
    assert message.error.kind == "server"
    assert message.error.message.startswith("line 2:")
    assert dump(message)["content"] == [{"type": "text", "text": "ab"}]


def test_ndjson_content_type_selects_the_stream_path() -> None:
    result = outcome(200, TEXT, stream=False, headers={"Content-Type": "application/x-ndjson"})
    assert result.message is not None
    assert result.message.stop_reason == "stop"


@settings(max_examples=60, deadline=None)
@given(data=st.data(), index=st.integers(min_value=0, max_value=len(BODIES) - 1))
def test_any_split_gives_the_same_result(data: st.DataObject, index: int) -> None:
    body = BODIES[index]
    expected_events, expected = run(body)
    events, message = run(body, data.draw(cuts(body)))
    assert dump(message) == dump(expected)
    assert events == expected_events


def test_empty_stream_is_interrupted() -> None:
    result = outcome(200, b"", stream=True)
    assert result.error is not None
    assert result.error.kind == "stream_interrupted"
