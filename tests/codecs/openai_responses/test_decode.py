"""Non-streaming Responses bodies (wire reference §2.3): items, stop reasons, usage, errors."""

from __future__ import annotations

import orjson

from conformance.model import ServerToolBlock, TextBlock, ThinkingBlock, ToolCallBlock, Usage
from tests.codecs.openai_responses.helpers import decode_json, response

REASONING = {
    "type": "reasoning",
    "id": "rs_0a1",
    "summary": [{"type": "summary_text", "text": "First."}, {"type": "summary_text", "text": "Second."}],
    "encrypted_content": "gAAAAABo-enc==",
}
CALL = {
    "type": "function_call",
    "id": "fc_0b2",
    "call_id": "call_AB6",
    "name": "calculator",
    "arguments": '{"a":12,"b":7}',
    "status": "completed",
}
MESSAGE = {
    "type": "message",
    "id": "msg_0c3",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "19", "annotations": []}],
}


def test_reasoning_call_and_text_in_order_with_what_goes_back() -> None:
    out = decode_json(response([REASONING, CALL, MESSAGE]))
    assert out.message is not None
    thinking, call, text = out.message.content
    assert thinking == ThinkingBlock(
        thinking="First.\n\nSecond.", signature='{"id":"rs_0a1","encrypted_content":"gAAAAABo-enc=="}'
    )
    assert call == ToolCallBlock(id="call_AB6", name="calculator", arguments={"a": 12, "b": 7}, signature="fc_0b2")
    assert text == TextBlock(text="19", signature="msg_0c3")
    assert out.message.stop_reason == "tool_use"
    assert out.message.raw_stop_reason == "completed"


def test_usage_counts_cached_and_reasoning_tokens_once() -> None:
    out = decode_json(response([MESSAGE]))
    assert out.message is not None
    assert out.message.usage == Usage(
        input_tokens=120, output_tokens=48, cache_read_tokens=100, cache_write_tokens=0, reasoning_tokens=30
    )
    assert out.message.stop_reason == "stop"


def test_incomplete_response_names_its_reason() -> None:
    cut = response([MESSAGE], status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    filtered = response([], status="incomplete", incomplete_details={"reason": "content_filter"})
    first, second = decode_json(cut).message, decode_json(filtered).message
    assert first is not None and second is not None
    assert (first.stop_reason, first.raw_stop_reason) == ("length", "max_output_tokens")
    assert (second.stop_reason, second.raw_stop_reason) == ("content_filter", "content_filter")


def test_refusal_part_is_text_and_the_stop_reason() -> None:
    refusal = {**MESSAGE, "content": [{"type": "refusal", "refusal": "I can't help with that."}]}
    out = decode_json(response([refusal]))
    assert out.message is not None
    assert out.message.content == [TextBlock(text="I can't help with that.", signature="msg_0c3")]
    assert out.message.stop_reason == "refusal"


def test_failed_response_is_an_error_with_what_arrived() -> None:
    failed = response([MESSAGE], status="failed", error={"code": "server_error", "message": "The server had an error"})
    out = decode_json(failed)
    assert out.error is not None and out.partial is not None
    assert (out.error.kind, out.error.provider_code) == ("server", "server_error")
    assert out.partial.stop_reason == "error"
    assert out.partial.content == [TextBlock(text="19", signature="msg_0c3")]


def test_builtin_tool_items_are_server_tool_blocks_not_client_calls() -> None:
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}}
    out = decode_json(response([search, MESSAGE]))
    assert out.message is not None
    assert out.message.content == [
        ServerToolBlock(dialect="openai_responses", name="web_search_call", id="ws_1", status="completed", data=search),
        TextBlock(text="19", signature="msg_0c3"),
    ]
    assert out.message.stop_reason == "stop"


def test_repeated_item_ids_stay_apart() -> None:
    """xAI gives two reasoning items of one response the same id."""
    again = {**REASONING, "summary": [], "encrypted_content": "other"}
    out = decode_json(response([REASONING, again, MESSAGE]))
    assert out.message is not None
    signatures = [orjson.loads(b.signature or "") for b in out.message.content if isinstance(b, ThinkingBlock)]
    assert [s["encrypted_content"] for s in signatures] == ["gAAAAABo-enc==", "other"]


def test_background_response_in_progress_has_no_stop_reason() -> None:
    out = decode_json(response([], status="in_progress", usage=None))
    assert out.message is not None
    assert out.message.stop_reason is None and out.message.usage is None


def test_http_errors_use_the_chat_envelope_and_response_codes() -> None:
    overflow = {
        "error": {
            "message": "Your input exceeds the context window of this model. Please adjust your input and try again.",
            "type": "invalid_request_error",
            "param": "input",
            "code": "context_length_exceeded",
        }
    }
    out = decode_json(overflow, status=400)
    assert out.error is not None and out.error.kind == "context_overflow" and out.error.status == 400
    flagged = {
        "error": {"message": "Invalid prompt: flagged", "type": "invalid_request_error", "code": "invalid_prompt"}
    }
    out = decode_json(flagged, status=400)
    assert out.error is not None and out.error.kind == "content_filter"


def test_an_item_whose_type_is_not_a_string_is_an_unknown_item() -> None:
    # hostile input: a list is no item type (it used to crash the built-in item lookup)
    odd = {**MESSAGE, "id": "msg_odd", "type": []}
    out = decode_json(response([odd, MESSAGE]))
    assert out.message is not None
    assert out.message.content == [TextBlock(text="19", signature="msg_0c3")]
