"""Streamed Responses (wire reference §2.4, §2.5): events, items by output index, endings, errors.

Every body is also decoded split at many offsets and must agree with its whole decoding.
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import get_profile
from conformance.codecs.openai_responses import OpenAIResponsesStream
from conformance.model import (
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextBlock,
    TextDeltaEvent,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from tests.codecs.openai_responses.helpers import USAGE, every_split, response, sse

RS: dict[str, Any] = {"type": "reasoning", "id": "rs_1", "summary": []}
FC: dict[str, Any] = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": "",
}
MSG: dict[str, Any] = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}


def _created() -> dict[str, Any]:
    return {"type": "response.created", "response": response([], status="in_progress", usage=None)}


def _completed(output: list[dict[str, Any]], status: str = "completed", **extra: Any) -> dict[str, Any]:
    return {"type": f"response.{status}", "response": response(output, status=status, **extra)}


REASONING_CALL_TEXT = sse(
    _created(),
    {"type": "response.output_item.added", "output_index": 0, "item": {**RS, "encrypted_content": "partial"}},
    {
        "type": "response.reasoning_summary_text.delta",
        "item_id": "rs_1",
        "output_index": 0,
        "summary_index": 0,
        "delta": "Check ",
    },
    {
        "type": "response.reasoning_summary_text.delta",
        "item_id": "rs_1",
        "output_index": 0,
        "summary_index": 0,
        "delta": "Oslo.",
    },
    {
        "type": "response.reasoning_summary_text.delta",
        "item_id": "rs_1",
        "output_index": 0,
        "summary_index": 1,
        "delta": "Then answer.",
    },
    {"type": "response.output_item.done", "output_index": 0, "item": {**RS, "encrypted_content": "gAAA-final"}},
    {"type": "response.output_item.added", "output_index": 1, "item": FC},
    {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 1, "delta": '{"city":'},
    {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 1, "delta": '"Oslo"}'},
    {
        "type": "response.function_call_arguments.done",
        "item_id": "fc_1",
        "output_index": 1,
        "arguments": '{"city":"Oslo"}',
    },
    {"type": "response.output_item.done", "output_index": 1, "item": {**FC, "arguments": '{"city":"Oslo"}'}},
    _completed([]),
)

TEXT = sse(
    _created(),
    {"type": "response.output_item.added", "output_index": 0, "item": MSG},
    {
        "type": "response.content_part.added",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "part": {"type": "output_text", "text": ""},
    },
    {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Grüß "},
    {
        "type": "response.output_text.delta",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "dich 👋",
    },
    {
        "type": "response.output_text.done",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "text": "Grüß dich 👋",
    },
    _completed([{**MSG, "status": "completed", "content": [{"type": "output_text", "text": "Grüß dich 👋"}]}]),
    done=True,
)


def test_reasoning_then_call_with_the_final_encrypted_content() -> None:
    out = every_split(REASONING_CALL_TEXT)
    assert out.message is not None
    assert out.message.content == [
        ThinkingBlock(
            thinking="Check Oslo.\n\nThen answer.", signature='{"id":"rs_1","encrypted_content":"gAAA-final"}'
        ),
        ToolCallBlock(id="call_1", name="get_weather", arguments={"city": "Oslo"}, signature="fc_1"),
    ]
    assert out.message.stop_reason == "tool_use"
    assert (
        out.message.usage is not None
        and out.message.usage.reasoning_tokens == USAGE["output_tokens_details"]["reasoning_tokens"]
    )


def test_text_with_multibyte_characters_and_a_trailing_done() -> None:
    out = every_split(TEXT)
    assert out.message is not None
    assert out.message.content == [TextBlock(text="Grüß dich 👋", signature="msg_1")]
    assert (out.message.stop_reason, out.message.raw_stop_reason) == ("stop", "completed")


def test_events_start_deltas_call_end_and_done() -> None:
    acc = OpenAIResponsesStream(get_profile("openai_responses"))
    events = acc.feed(REASONING_CALL_TEXT)
    kinds = [type(e) for e in events]
    assert kinds[0] is StartEvent and kinds[-1] is DoneEvent
    assert ToolCallStartEvent in kinds and kinds.index(ToolCallEndEvent) < kinds.index(DoneEvent)
    texts = OpenAIResponsesStream(get_profile("openai_responses")).feed(TEXT)
    assert [e.delta for e in texts if isinstance(e, TextDeltaEvent)] == ["Grüß ", "dich 👋"]


def test_items_that_only_arrive_whole_are_read() -> None:
    """A server that sends no deltas: the items of `output_item.done` (or of the final response)."""
    body = sse(
        _created(),
        {"type": "response.output_item.done", "output_index": 0, "item": {**FC, "arguments": "{}"}},
        _completed([{**FC, "arguments": "{}"}, {**MSG, "content": [{"type": "output_text", "text": "ok"}]}]),
    )
    out = every_split(body)
    assert out.message is not None
    assert out.message.content == [
        ToolCallBlock(id="call_1", name="get_weather", arguments={}, signature="fc_1"),
        TextBlock(text="ok", signature="msg_1"),
    ]


def test_incomplete_stream_ends_with_length() -> None:
    body = sse(
        _created(),
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "Once upon",
        },
        _completed([], status="incomplete", incomplete_details={"reason": "max_output_tokens"}),
    )
    out = every_split(body)
    assert out.message is not None
    assert (out.message.stop_reason, out.message.raw_stop_reason) == ("length", "max_output_tokens")


def test_error_event_in_either_shape_keeps_the_partial() -> None:
    text = {
        "type": "response.output_text.delta",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "Hal",
    }
    flat = {"type": "error", "code": "server_error", "message": "The server had an error", "param": None}
    nested = {
        "type": "error",
        "error": {
            "type": "insufficient_quota",
            "code": "insufficient_quota",
            "message": "You exceeded your quota",
            "param": None,
        },
    }
    failed = _completed([], status="failed", error={"code": "server_error", "message": "The server had an error"})
    for event, kind in ((flat, "server"), (nested, "rate_limited")):
        out = every_split(sse(_created(), text, event, failed))
        assert out.error is not None and out.partial is not None
        assert out.error.kind == kind and out.error.status is None
        assert out.partial.content == [TextBlock(text="Hal", signature="msg_1")]
        assert out.partial.stop_reason == "error"
    acc = OpenAIResponsesStream(get_profile("openai_responses"))
    assert [type(e) for e in acc.feed(sse(_created(), text, flat, failed))][-1] is ErrorEvent


def test_response_failed_alone_is_the_error() -> None:
    failed = _completed([], status="failed", error={"code": "rate_limit_exceeded", "message": "Rate limit reached"})
    out = every_split(sse(_created(), failed))
    assert out.error is not None and out.error.kind == "rate_limited"


def test_a_stream_without_its_terminal_event_is_interrupted() -> None:
    cut = REASONING_CALL_TEXT[: REASONING_CALL_TEXT.index(b"event: response.completed")]
    out = every_split(cut)
    assert out.error is not None and out.error.kind == "stream_interrupted"
    assert out.partial is not None and out.partial.stop_reason is None
    assert [b.type for b in out.partial.content] == ["thinking", "tool_call"]


def test_refusal_deltas_make_a_refusal() -> None:
    body = sse(
        _created(),
        {
            "type": "response.refusal.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "I can't ",
        },
        {"type": "response.refusal.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "help."},
        _completed([]),
    )
    out = every_split(body)
    assert out.message is not None
    assert out.message.content == [TextBlock(text="I can't help.", signature="msg_1")]
    assert out.message.stop_reason == "refusal"


def _delta(index: int, item_id: str, delta: str) -> dict[str, Any]:
    return {
        "type": "response.output_text.delta",
        "item_id": item_id,
        "output_index": index,
        "content_index": 0,
        "delta": delta,
    }


def _message(item_id: str, text: str, phase: str) -> dict[str, Any]:
    return {
        **MSG,
        "id": item_id,
        "status": "completed",
        "phase": phase,
        "content": [{"type": "output_text", "text": text}],
    }


def test_two_messages_keep_their_text_apart_when_the_final_output_skips_an_index() -> None:
    """A commentary message at output index 0, the answer at index 2 (index 1 never streamed, and
    the final `output` lists the two messages at positions 0 and 1): each text once, in order."""
    first, answer = _message("msg_a", "Got it.", "commentary"), _message("msg_b", "Here it is.", "final_answer")
    body = sse(
        _created(),
        {"type": "response.output_item.added", "output_index": 0, "item": {**MSG, "id": "msg_a"}},
        _delta(0, "msg_a", "Got "),
        _delta(0, "msg_a", "it."),
        {"type": "response.output_item.done", "output_index": 0, "item": first},
        {"type": "response.output_item.added", "output_index": 2, "item": {**MSG, "id": "msg_b"}},
        _delta(2, "msg_b", "Here "),
        _delta(2, "msg_b", "it is."),
        {"type": "response.output_item.done", "output_index": 2, "item": answer},
        _completed([first, answer]),
    )
    out = every_split(body)
    assert out.message is not None
    assert out.message.content == [
        TextBlock(text="Got it.", signature="msg_a"),
        TextBlock(text="Here it is.", signature="msg_b"),
    ]


def test_the_text_of_output_text_done_completes_what_the_deltas_left_out() -> None:
    """`output_text.done` restates the part whole: text whose deltas were not all sent is completed
    (with one more delta event), and the final response's message agrees."""
    whole = _message("msg_a", "Got it, checking the news.", "commentary")
    body = sse(
        _created(),
        {"type": "response.output_item.added", "output_index": 0, "item": {**MSG, "id": "msg_a"}},
        _delta(0, "msg_a", "Got"),
        _delta(0, "msg_a", " it"),
        {
            "type": "response.output_text.done",
            "item_id": "msg_a",
            "output_index": 0,
            "content_index": 0,
            "text": "Got it, checking the news.",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": whole},
        _completed([whole]),
    )
    out = every_split(body)
    assert out.message is not None
    assert out.message.content == [TextBlock(text="Got it, checking the news.", signature="msg_a")]
    events = OpenAIResponsesStream(get_profile("openai_responses")).feed(body)
    assert [e.delta for e in events if isinstance(e, TextDeltaEvent)] == ["Got", " it", ", checking the news."]


def test_the_final_message_replaces_deltas_that_are_not_its_prefix() -> None:
    """Deltas that disagree with the final form give way to it (the final response is authoritative)."""
    whole = _message("msg_a", "Hello", "final_answer")
    body = sse(
        _created(),
        {"type": "response.output_item.added", "output_index": 0, "item": {**MSG, "id": "msg_a"}},
        _delta(0, "msg_a", "Help"),
        _completed([whole]),
    )
    out = every_split(body)
    assert out.message is not None
    assert out.message.content == [TextBlock(text="Hello", signature="msg_a")]
