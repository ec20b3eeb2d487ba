"""Gemini streaming (§4.5): text increments, whole function calls, cumulative usage, no terminator.

Every test body also runs under arbitrary re-chunking (`test_any_split_gives_the_same_result`).
"""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.codecs.gemini import GeminiStream, decode
from conformance.model import dump
from tests.codecs.gemini.helpers import PROFILE, cuts, outcome, run, sse

TEXT = sse(
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]},"index":0}],'
    '"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":1},"modelVersion":"gemini-2.5-flash"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"lo, wörld"}]},"index":0}],'
    '"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":3},"modelVersion":"gemini-2.5-flash"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"!"}]},"finishReason":"STOP","index":0}],'
    '"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":4,"totalTokenCount":8},'
    '"modelVersion":"gemini-2.5-flash"}',
)

THINKING_THEN_TEXT_SIGNED_AT_END = sse(
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"**Plan**","thought":true}]}}]}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":" more","thought":true}]}}]}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"Answer"}]}}]}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":" here."}]}}]}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"","thoughtSignature":"c2ln/+=="}]},'
    '"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":3,'
    '"thoughtsTokenCount":20}}',
)

# The same answer twice: as stream chunks and as one JSON body.
CALLS_STREAM = sse(
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"Checking","thought":true}]}}]}',
    '{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather",'
    '"args":{"city":"Paris"}},"thoughtSignature":"EpEg"}]}}]}',
    '{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_time",'
    '"args":{"tz":"CET"}}}]},"finishReason":"STOP"}],'
    '"usageMetadata":{"promptTokenCount":50,"candidatesTokenCount":12,"thoughtsTokenCount":30},'
    '"modelVersion":"gemini-3-pro-preview"}',
)
CALLS_JSON = b"""{"candidates":[{"content":{"role":"model","parts":[
  {"text":"Checking","thought":true},
  {"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"EpEg"},
  {"functionCall":{"name":"get_time","args":{"tz":"CET"}}}]},"finishReason":"STOP"}],
 "usageMetadata":{"promptTokenCount":50,"candidatesTokenCount":12,"thoughtsTokenCount":30},
 "modelVersion":"gemini-3-pro-preview"}"""

CUT_MID_ANSWER = TEXT[: TEXT.index(b"data:", 10)] + b'data: {"candidates":[{"content":{"parts":[{"te'

RAW_ERROR_MID_STREAM = (
    sse('{"candidates":[{"content":{"role":"model","parts":[{"text":"Partial"}]}}]}')
    + b"""{
  "error": {
    "code": 503,
    "message": "The model is overloaded. Please try again later.",
    "status": "UNAVAILABLE"
  }
}
"""
)

SIGNED_MIDDLE = sse(
    '{"candidates":[{"content":{"parts":[{"text":"A"}]}}]}',
    '{"candidates":[{"content":{"parts":[{"text":"B","thoughtSignature":"s1"}]}}]}',
    '{"candidates":[{"content":{"parts":[{"text":"C"}]},"finishReason":"STOP"}]}',
)

CLEAN_CLOSE = sse('{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}')

ERROR_FRAME = sse(
    '{"candidates":[{"content":{"parts":[{"text":"x"}]}}]}',
    '{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}',
)

BAD_EVENT = sse(
    '{"candidates":[{"content":{"parts":[{"text":"x"}]}}]}',
    '{"candidates": nope}',
    '{"candidates":[{"content":{"parts":[{"text":"y"}]},"finishReason":"STOP"}]}',
)

BLOCKED = sse('{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}')

JSON_ARRAY = (
    b'[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}\n,\r\n'
    b'{"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"STOP"}]}\n]'
)

UNSUPPORTED = sse(
    '{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]},"finishReason":"STOP"}]}'
)

TEXT_LF = TEXT.replace(b"\r\n", b"\n")

BODIES = [
    TEXT,
    TEXT_LF,
    THINKING_THEN_TEXT_SIGNED_AT_END,
    CALLS_STREAM,
    CUT_MID_ANSWER,
    RAW_ERROR_MID_STREAM,
    SIGNED_MIDDLE,
    CLEAN_CLOSE,
    ERROR_FRAME,
    BAD_EVENT,
    BLOCKED,
    JSON_ARRAY,
    UNSUPPORTED,
]


def test_text_increments_append_to_one_block_and_usage_is_the_last() -> None:
    events, message = run(TEXT)
    assert dump(message) == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Hello, wörld!"}],
        "stop_reason": "stop",
        "raw_stop_reason": "STOP",
        "usage": {
            "input_tokens": 4,
            "output_tokens": 4,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
        },
        "provider": "gemini",
        "model": "gemini-2.5-flash",
    }
    assert [e.type for e in events] == ["start", "text_delta", "text_delta", "text_delta", "done"]
    assert "".join(e.delta for e in events if e.type == "text_delta") == "Hello, wörld!"


def test_thinking_then_text_then_signature_on_an_empty_final_part() -> None:
    _, message = run(THINKING_THEN_TEXT_SIGNED_AT_END)
    assert dump(message)["content"] == [
        {"type": "thinking", "thinking": "**Plan** more"},
        {"type": "text", "text": "Answer here."},
        {"type": "text", "text": "", "signature": "c2ln/+=="},
    ]
    assert message.usage is not None
    assert (message.usage.output_tokens, message.usage.reasoning_tokens) == (23, 20)


def test_signature_bearing_chunk_ends_its_block() -> None:
    _, message = run(SIGNED_MIDDLE)
    assert dump(message)["content"] == [
        {"type": "text", "text": "AB", "signature": "s1"},
        {"type": "text", "text": "C"},
    ]


def test_stream_and_json_body_of_the_same_answer_agree_ids_included() -> None:
    _, streamed = run(CALLS_STREAM)
    whole = decode(orjson.loads(CALLS_JSON), PROFILE)
    assert dump(streamed) == dump(whole)
    assert [b.id for b in whole.content if b.type == "tool_call"] == ["call_0", "call_1"]
    assert whole.stop_reason == "tool_use"


def test_tool_call_events() -> None:
    events, _ = run(CALLS_STREAM)
    kinds = [e.type for e in events]
    assert kinds == [
        "start",
        "thinking_delta",
        "toolcall_start",
        "toolcall_end",
        "toolcall_start",
        "toolcall_end",
        "done",
    ]


def test_stream_without_finish_reason_is_interrupted_and_keeps_the_partial() -> None:
    result = outcome(200, CUT_MID_ANSWER, stream=True)
    assert result.error is not None
    assert result.error.kind == "stream_interrupted"
    assert result.partial is not None
    assert dump(result.partial)["content"] == [{"type": "text", "text": "Hel"}]


def test_clean_close_without_finish_reason_is_interrupted() -> None:
    result = outcome(200, CLEAN_CLOSE, stream=True)
    assert result.error is not None
    assert result.error.kind == "stream_interrupted"


def test_raw_multiline_error_mid_stream_is_typed_and_keeps_the_partial() -> None:
    result = outcome(200, RAW_ERROR_MID_STREAM, stream=True)
    assert result.error is not None
    assert (result.error.kind, result.error.status, result.error.provider_code) == (
        "overloaded",
        503,
        "UNAVAILABLE",
    )
    assert result.partial is not None
    assert dump(result.partial)["content"] == [{"type": "text", "text": "Partial"}]


def test_error_as_a_data_frame() -> None:
    events, message = run(ERROR_FRAME)
    assert message.error is not None
    assert (message.error.kind, message.error.status) == ("server", 500)
    assert events[-1].type == "error"


def test_invalid_json_in_a_complete_event_names_the_event() -> None:
    _, message = run(BAD_EVENT)
    assert message.error is not None
    assert message.error.kind == "server"
    assert "SSE event 2" in message.error.message
    assert dump(message)["content"] == [{"type": "text", "text": "xy"}]  # nothing after it is lost


def test_lf_only_framing_reads_the_same() -> None:
    _, crlf = run(TEXT)
    _, lf = run(TEXT_LF)
    assert dump(crlf) == dump(lf)


def test_prompt_blocked_mid_stream_is_finished() -> None:
    _, message = run(BLOCKED)
    assert message.error is None
    assert (message.stop_reason, message.raw_stop_reason) == ("content_filter", "PROHIBITED_CONTENT")


def test_json_array_stream_through_the_stream_path() -> None:
    _, message = run(JSON_ARRAY)
    assert message.error is None
    assert dump(message)["content"] == [{"type": "text", "text": "ab"}]


def test_unsupported_parts_are_reported() -> None:
    acc = GeminiStream(PROFILE)
    acc.feed(UNSUPPORTED)
    acc.finish()
    assert acc.unsupported_parts == ["inlineData"]


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
    assert result.partial is not None
    assert result.partial.content == []
