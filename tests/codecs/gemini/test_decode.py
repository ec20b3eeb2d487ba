"""Gemini non-streaming decode, from hand-written bodies shaped like the wire reference (§4.4)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from conformance.codecs.gemini import decode
from conformance.exceptions import WireFormatError
from conformance.model import dump
from tests.codecs.gemini.helpers import PROFILE, outcome

THOUGHT_AND_CALL = b"""{"candidates":[{"index":0,"finishReason":"STOP",
  "content":{"role":"model","parts":[
    {"text":"summary of thoughts..","thought":true},
    {"functionCall":{"name":"weather","args":{"location":"San Francisco"}},
     "thoughtSignature":"EpEg/x+=="}]}}],
 "usageMetadata":{"promptTokenCount":29,"candidatesTokenCount":15,"thoughtsTokenCount":804,
   "cachedContentTokenCount":0,"totalTokenCount":848},
 "modelVersion":"gemini-3-pro-preview","responseId":"QHiL.."}"""


def decoded(body: bytes) -> dict[str, Any]:
    return dump(decode(orjson.loads(body), PROFILE))


def test_thought_and_signed_function_call() -> None:
    assert decoded(THOUGHT_AND_CALL) == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "summary of thoughts.."},
            {
                "type": "tool_call",
                "id": "call_0",
                "name": "weather",
                "arguments": {"location": "San Francisco"},
                "signature": "EpEg/x+==",
            },
        ],
        # STOP + functionCall parts is a tool-call turn (Gemini has no tool-call finish reason).
        "stop_reason": "tool_use",
        "raw_stop_reason": "STOP",
        # output = candidates (15) + thoughts (804); reasoning = thoughts.
        "usage": {
            "input_tokens": 29,
            "output_tokens": 819,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "reasoning_tokens": 804,
        },
        "provider": "gemini",
        "model": "gemini-3-pro-preview",
    }


def test_parallel_calls_get_ordinal_ids_and_only_the_first_is_signed() -> None:
    body = b"""{"candidates":[{"finishReason":"STOP","content":{"role":"model","parts":[
      {"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"sig-A"},
      {"functionCall":{"name":"get_weather","args":{"city":"Tokyo"}}}]}}]}"""
    content = decoded(body)["content"]
    assert content == [
        {
            "type": "tool_call",
            "id": "call_0",
            "name": "get_weather",
            "arguments": {"city": "Paris"},
            "signature": "sig-A",
        },
        {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Tokyo"}},
    ]


def test_wire_id_is_kept_and_absent_args_are_an_empty_object() -> None:
    body = b"""{"candidates":[{"finishReason":"STOP","content":{"role":"model","parts":[
      {"functionCall":{"id":"fc-7","name":"now"}}]}}]}"""
    assert decoded(body)["content"] == [{"type": "tool_call", "id": "fc-7", "name": "now", "arguments": {}}]


def test_text_parts_of_one_kind_form_one_block() -> None:
    body = b"""{"candidates":[{"finishReason":"STOP","content":{"role":"model","parts":[
      {"text":"Hello "},{"text":"world"}]}}]}"""
    message = decoded(body)
    assert message["content"] == [{"type": "text", "text": "Hello world"}]
    assert message["stop_reason"] == "stop"


def test_signature_on_an_empty_trailing_text_part_is_kept_as_its_own_block() -> None:
    body = b"""{"candidates":[{"finishReason":"STOP","content":{"role":"model","parts":[
      {"text":"Done."},{"text":"","thoughtSignature":"Zm9v/+=="}]}}]}"""
    assert decoded(body)["content"] == [
        {"type": "text", "text": "Done."},
        {"type": "text", "text": "", "signature": "Zm9v/+=="},
    ]


def test_signature_on_a_text_part_ends_that_block() -> None:
    body = b"""{"candidates":[{"finishReason":"STOP","content":{"role":"model","parts":[
      {"text":"A"},{"text":"B","thoughtSignature":"s1"},{"text":"C"}]}}]}"""
    assert decoded(body)["content"] == [
        {"type": "text", "text": "AB", "signature": "s1"},
        {"type": "text", "text": "C"},
    ]


def test_thinking_signature_is_kept_byte_exact() -> None:
    body = b"""{"candidates":[{"finishReason":"STOP","content":{"role":"model","parts":[
      {"text":"plan","thought":true,"thoughtSignature":"a/b+c=="},{"text":"answer"}]}}]}"""
    assert decoded(body)["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": "a/b+c=="},
        {"type": "text", "text": "answer"},
    ]


@pytest.mark.parametrize(
    ("finish", "expected"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("IMAGE_SAFETY", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "error"),
        ("UNEXPECTED_TOOL_CALL", "error"),
        ("TOO_MANY_TOOL_CALLS", "error"),
        ("OTHER", "error"),
    ],
)
def test_finish_reason_table(finish: str, expected: str) -> None:
    body = b'{"candidates":[{"finishReason":"%s","content":{"role":"model","parts":[{"text":"x"}]}}]}' % (
        finish.encode()
    )
    message = decoded(body)
    assert (message["stop_reason"], message["raw_stop_reason"]) == (expected, finish)


def test_max_tokens_with_a_call_stays_length() -> None:
    body = b"""{"candidates":[{"finishReason":"MAX_TOKENS","content":{"role":"model","parts":[
      {"functionCall":{"name":"f","args":{}}}]}}]}"""
    assert decoded(body)["stop_reason"] == "length"


def test_blocked_prompt_has_no_candidates() -> None:
    body = b'{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":7}}'
    message = decoded(body)
    assert message["content"] == []
    assert (message["stop_reason"], message["raw_stop_reason"]) == ("content_filter", "SAFETY")
    assert message["usage"]["input_tokens"] == 7


def test_cached_tokens_are_part_of_input() -> None:
    body = b"""{"candidates":[{"finishReason":"STOP","content":{"parts":[{"text":"x"}]}}],
      "usageMetadata":{"promptTokenCount":1200,"cachedContentTokenCount":1000,"candidatesTokenCount":5}}"""
    assert decoded(body)["usage"] == {
        "input_tokens": 1200,
        "output_tokens": 5,
        "cache_read_tokens": 1000,
        "cache_write_tokens": 0,
        "reasoning_tokens": 0,
    }


def test_json_array_form_reads_like_the_stream() -> None:
    # streamGenerateContent without alt=sse answers one JSON array of chunks.
    body = b"""[{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}]},
{"candidates":[{"content":{"role":"model","parts":[{"text":"lo"}]},"finishReason":"STOP"}],
 "usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}]"""
    result = outcome(200, body, stream=False, headers={"content-type": "application/json"})
    assert result.message is not None
    assert dump(result.message)["content"] == [{"type": "text", "text": "Hello"}]
    assert result.message.stop_reason == "stop"


def test_non_object_body_is_corrupt_input() -> None:
    with pytest.raises(WireFormatError, match="response body"):
        decode("nope", PROFILE)


def test_server_side_tool_parts_do_not_hide_the_text() -> None:
    body = b"""{"candidates":[{"finishReason":"STOP","content":{"role":"model","parts":[
      {"executableCode":{"language":"PYTHON","code":"print(1)"}},
      {"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1"}},{"text":"The answer is 1."}]}}]}"""
    assert decoded(body)["content"][-1] == {"type": "text", "text": "The answer is 1."}
