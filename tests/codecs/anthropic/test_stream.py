"""Stream decoding, one behaviour per test, against hand-written wire bodies (`streams.py`)."""

from __future__ import annotations

import pytest

from conformance.exceptions import WireFormatError
from conformance.model import (
    DoneEvent,
    ErrorEvent,
    RedactedThinkingBlock,
    ServerToolBlock,
    StartEvent,
    TextBlock,
    TextDeltaEvent,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    Usage,
)
from tests.codecs.anthropic import streams
from tests.codecs.anthropic.helpers import message_json, stream_events, stream_outcome


def test_text_stream_gives_one_text_block_and_usage() -> None:
    outcome = stream_outcome(streams.TEXT)
    assert outcome.error is None
    assert message_json(outcome) == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Héllo, wörld 🌍!"}],
        "stop_reason": "stop",
        "raw_stop_reason": "end_turn",
        # input = 25 uncached + 10 cache reads + 5 cache writes; output from message_delta
        "usage": {
            "input_tokens": 40,
            "output_tokens": 15,
            "cache_read_tokens": 10,
            "cache_write_tokens": 5,
            "reasoning_tokens": 0,
        },
        "provider": "anthropic",
        "model": "claude-sonnet-4-5-20250929",
    }


def test_text_stream_events() -> None:
    events = stream_events(streams.TEXT)
    assert events[0] == StartEvent()
    assert events[1:3] == [
        TextDeltaEvent(index=0, delta="Héllo, "),
        TextDeltaEvent(index=0, delta="wörld 🌍!"),
    ]
    assert isinstance(events[3], DoneEvent)
    assert events[3].message == stream_outcome(streams.TEXT).message
    assert len(events) == 4


def test_crlf_line_ends_decode_the_same() -> None:
    assert stream_outcome(streams.CRLF) == stream_outcome(streams.TEXT)


def test_tool_input_fragments_are_joined_and_parsed_once() -> None:
    message = stream_outcome(streams.TOOLS).message
    assert message is not None
    assert message.content == [
        TextBlock(text="Checking."),
        ToolCallBlock(id="toolu_01A", name="get_weather", arguments={"city": "Paris", "days": 3}),
        ToolCallBlock(id="toolu_01B", name="get_time", arguments={}),
    ]
    assert message.stop_reason == "tool_use"
    assert message.raw_stop_reason == "tool_use"


def test_tool_call_events_follow_the_block_lifecycle() -> None:
    tool_events = [
        e
        for e in stream_events(streams.TOOLS)
        if isinstance(e, ToolCallStartEvent | ToolCallDeltaEvent | ToolCallEndEvent)
    ]
    assert tool_events == [
        ToolCallStartEvent(index=1, id="toolu_01A", name="get_weather"),
        ToolCallDeltaEvent(index=1, delta='{"city": "Par'),
        ToolCallDeltaEvent(index=1, delta='is", "days": 3}'),
        ToolCallEndEvent(index=1),
        ToolCallStartEvent(index=2, id="toolu_01B", name="get_time"),
        ToolCallEndEvent(index=2),
    ]


def test_invalid_tool_json_gives_empty_arguments_and_the_raw_text() -> None:
    message = stream_outcome(streams.BAD_ARGS).message
    assert message is not None
    assert message.content == [
        ToolCallBlock(id="toolu_01C", name="get_weather", arguments={}, raw_arguments='{"city": Paris}')
    ]


def test_start_placeholder_input_is_used_only_without_deltas() -> None:
    body = streams.sse(
        streams.START,
        streams.block_start(0, '{"type":"tool_use","id":"toolu_1","name":"f","input":{"a":1}}'),
        streams.block_stop(0),
        streams.block_start(1, '{"type":"tool_use","id":"toolu_2","name":"g","input":{"b":2}}'),
        streams.block_delta(1, '{"type":"input_json_delta","partial_json":"{\\"c\\":3}"}'),
        streams.block_stop(1),
        streams.delta("tool_use"),
        streams.STOP,
    )
    message = stream_outcome(body).message
    assert message is not None
    assert [b.arguments for b in message.content if isinstance(b, ToolCallBlock)] == [{"a": 1}, {"c": 3}]


def test_thinking_text_and_signature_are_kept_byte_exact() -> None:
    message = stream_outcome(streams.THINKING).message
    assert message is not None
    assert message.content == [
        ThinkingBlock(thinking="Let me think: 2 + 2 = 4.", signature="EqQBCkgIARABGAIiQL+/9x==+/abc"),
        TextBlock(text="4"),
    ]


def test_cumulative_usage_with_thinking_tokens() -> None:
    message = stream_outcome(streams.THINKING).message
    assert message is not None
    assert message.usage == Usage(
        input_tokens=40, output_tokens=80, cache_read_tokens=10, cache_write_tokens=5, reasoning_tokens=70
    )


def test_usage_fields_absent_from_message_delta_keep_message_start_values() -> None:
    body = streams.sse(
        streams.START,
        streams.delta("end_turn", '{"output_tokens":7,"cache_read_input_tokens":null}'),
        streams.STOP,
    )
    message = stream_outcome(body).message
    assert message is not None
    assert message.usage == Usage(input_tokens=40, output_tokens=7, cache_read_tokens=10, cache_write_tokens=5)


def test_redacted_thinking_is_opaque() -> None:
    message = stream_outcome(streams.REDACTED).message
    assert message is not None
    assert message.content == [
        RedactedThinkingBlock(data="EmwKAhgBEgy3va+/opaque=="),
        TextBlock(text="Done."),
    ]


def test_thinking_is_moved_before_text() -> None:
    message = stream_outcome(streams.TEXT_BEFORE_THINKING).message
    assert message is not None
    assert message.content == [
        ThinkingBlock(thinking="afterthought", signature="sig"),
        TextBlock(text="Answer"),
    ]
    assert message.stop_reason == "length"


def test_mid_stream_error_keeps_partial_and_types_the_error() -> None:
    outcome = stream_outcome(streams.MID_STREAM_ERROR)
    assert outcome.message is None
    assert outcome.error is not None
    assert outcome.error.kind == "overloaded"
    assert outcome.error.provider_code == "overloaded_error"
    assert outcome.error.message == "Overloaded"
    assert outcome.partial is not None
    assert outcome.partial.content == [TextBlock(text="Partial ans")]
    assert outcome.partial.stop_reason == "error"
    assert outcome.partial.error == outcome.error


def test_mid_stream_error_event_carries_the_partial() -> None:
    events = stream_events(streams.MID_STREAM_ERROR)
    assert isinstance(events[-1], ErrorEvent)
    assert events[-1].error.kind == "overloaded"
    assert events[-1].partial is not None
    assert events[-1].partial.content == [TextBlock(text="Partial ans")]


@pytest.mark.parametrize(
    ("error_type", "message", "kind"),
    [
        ("overloaded_error", "Overloaded", "overloaded"),
        ("rate_limit_error", "slow down", "rate_limited"),
        ("api_error", "Internal server error", "server"),
        ("invalid_request_error", "bad", "invalid_request"),
        ("invalid_request_error", "prompt is too long: 209353 tokens > 199999 maximum", "context_overflow"),
        ("authentication_error", "invalid x-api-key", "auth"),
        ("permission_error", "no", "permission"),
        ("not_found_error", "model: x", "not_found"),
        ("request_too_large", "too big", "payload_too_large"),
        ("timeout_error", "timed out", "timeout"),
        ("billing_error", "credit balance too low", "permission"),
        ("some_new_error", "?", "server"),
    ],
)
def test_stream_error_types(error_type: str, message: str, kind: str) -> None:
    body = streams.sse(
        streams.START,
        ("error", f'{{"type":"error","error":{{"type":"{error_type}","message":"{message}"}}}}'),
    )
    outcome = stream_outcome(body)
    assert outcome.error is not None
    assert (outcome.error.kind, outcome.error.provider_code, outcome.error.status) == (kind, error_type, None)


def test_missing_message_stop_is_an_interruption_with_partial() -> None:
    outcome = stream_outcome(streams.CUT)
    assert outcome.error is not None
    assert outcome.error.kind == "stream_interrupted"
    assert outcome.partial is not None
    assert outcome.partial.content == [TextBlock(text="Once upon")]
    # no terminal event: no stop reason, whatever message_delta said
    assert outcome.partial.stop_reason is None
    assert outcome.partial.usage is not None
    assert outcome.partial.usage.output_tokens == 15


def test_cut_inside_an_event_keeps_what_was_complete() -> None:
    outcome = stream_outcome(streams.CUT_MID_EVENT)
    assert outcome.error is not None
    assert outcome.error.kind == "stream_interrupted"
    assert outcome.partial is not None
    assert outcome.partial.content == [TextBlock(text="Héllo, ")]


def test_cut_inside_a_utf8_character_is_an_interruption() -> None:
    body = streams.TEXT[: streams.TEXT.index("ö".encode()) + 1]
    outcome = stream_outcome(body)
    assert outcome.error is not None
    assert outcome.error.kind == "stream_interrupted"


def test_empty_body_is_an_interruption() -> None:
    outcome = stream_outcome(b"")
    assert outcome.error is not None
    assert outcome.error.kind == "stream_interrupted"
    assert outcome.partial is not None
    assert outcome.partial.content == []


def test_server_tool_blocks_kept_unknown_events_and_citations_skipped() -> None:
    message = stream_outcome(streams.SERVER_TOOLS).message
    assert message is not None
    assert [(b.type, getattr(b, "name", None)) for b in message.content] == [
        ("server_tool", "server_tool_use"),
        ("server_tool", "web_search_tool_result"),
        ("text", None),
    ]
    use = message.content[0]
    assert isinstance(use, ServerToolBlock) and use.data["input"] == {"query": "weather"}  # from input_json_delta
    assert message.content[2] == TextBlock(text="Sunny.")
    assert message.stop_reason == "stop"


def test_invalid_json_mid_stream_is_corrupt_input() -> None:
    body = streams.sse(streams.START, ("content_block_start", "{not json"), streams.STOP)
    with pytest.raises(WireFormatError, match="stream event 2"):
        stream_outcome(body)


def test_delta_of_the_wrong_kind_is_corrupt_input() -> None:
    body = streams.sse(
        streams.START,
        streams.block_start(0, '{"type":"tool_use","id":"toolu_1","name":"f","input":{}}'),
        streams.block_delta(0, '{"type":"text_delta","text":"x"}'),
        streams.STOP,
    )
    with pytest.raises(WireFormatError, match="text_delta for a tool_call block"):
        stream_outcome(body)


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_use"),
        ("refusal", "refusal"),
        ("pause_turn", "stop"),
        ("model_context_window_exceeded", "length"),
    ],
)
def test_stop_reason_table(raw: str, normalized: str) -> None:
    message = stream_outcome(streams.sse(streams.START, streams.delta(raw), streams.STOP)).message
    assert message is not None
    assert (message.stop_reason, message.raw_stop_reason) == (normalized, raw)


def test_unknown_stop_reason_is_kept_raw_only() -> None:
    message = stream_outcome(streams.sse(streams.START, streams.delta("brand_new"), streams.STOP)).message
    assert message is not None
    assert (message.stop_reason, message.raw_stop_reason) == (None, "brand_new")


def test_refusal_keeps_the_text_produced() -> None:
    body = streams.sse(
        streams.START,
        streams.block_start(0, '{"type":"text","text":""}'),
        streams.block_delta(0, '{"type":"text_delta","text":"I can\'t help with that."}'),
        streams.block_stop(0),
        streams.delta("refusal"),
        streams.STOP,
    )
    message = stream_outcome(body).message
    assert message is not None
    assert message.content == [TextBlock(text="I can't help with that.")]
    assert message.stop_reason == "refusal"


def test_error_inside_a_tool_call_keeps_the_raw_fragment() -> None:
    body = streams.sse(
        streams.START,
        streams.block_start(0, '{"type":"tool_use","id":"toolu_1","name":"f","input":{}}'),
        streams.block_delta(0, '{"type":"input_json_delta","partial_json":"{\\"a\\": 1"}'),
        ("error", '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}'),
    )
    outcome = stream_outcome(body)
    assert outcome.error is not None
    assert outcome.error.kind == "server"
    assert outcome.partial is not None
    assert outcome.partial.content == [ToolCallBlock(id="toolu_1", name="f", arguments={}, raw_arguments='{"a": 1')]
