"""Non-streaming response bodies (reference section 3.3) and stream / non-stream agreement."""

from __future__ import annotations

import pytest

from conformance.codecs.anthropic import CODEC, AnthropicStream, classify, decode, encode
from conformance.exceptions import WireFormatError
from conformance.model import RedactedThinkingBlock, ServerToolBlock, TextBlock, ThinkingBlock, ToolCallBlock, Usage
from tests.codecs.anthropic import streams
from tests.codecs.anthropic.helpers import PROFILE, json_outcome, message_json, stream_outcome

FULL = b"""{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",
 "content":[{"type":"thinking","thinking":"The user wants weather.","signature":"EvQB+/x=="},
            {"type":"text","text":"I'll check."},
            {"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"city":"Paris"}}],
 "stop_reason":"tool_use","stop_sequence":null,
 "usage":{"input_tokens":472,"output_tokens":89,"cache_creation_input_tokens":30,"cache_read_input_tokens":100,
          "cache_creation":{"ephemeral_5m_input_tokens":30,"ephemeral_1h_input_tokens":0},
          "output_tokens_details":{"thinking_tokens":40},"service_tier":"standard"}}"""


def test_full_response() -> None:
    assert message_json(json_outcome(FULL)) == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "The user wants weather.", "signature": "EvQB+/x=="},
            {"type": "text", "text": "I'll check."},
            {"type": "tool_call", "id": "toolu_01A", "name": "get_weather", "arguments": {"city": "Paris"}},
        ],
        "stop_reason": "tool_use",
        "raw_stop_reason": "tool_use",
        "usage": {
            "input_tokens": 602,  # 472 + 100 read + 30 written
            "output_tokens": 89,
            "cache_read_tokens": 100,
            "cache_write_tokens": 30,
            "reasoning_tokens": 40,
        },
        "provider": "anthropic",
        "model": "claude-sonnet-4-5-20250929",
    }


def _body(content: str, stop: str = "end_turn") -> bytes:
    return (
        '{"type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":'
        + content
        + f',"stop_reason":"{stop}","usage":{{"input_tokens":25,"output_tokens":15,'
        '"cache_read_input_tokens":10,"cache_creation_input_tokens":5}}'
    ).encode()


def test_stream_and_non_stream_agree_on_the_same_content() -> None:
    body = _body('[{"type":"text","text":"Héllo, wörld 🌍!"}]')
    assert json_outcome(body) == stream_outcome(streams.TEXT)


def test_stream_and_non_stream_agree_on_tools() -> None:
    body = _body(
        '[{"type":"text","text":"Checking."},'
        '{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"city":"Paris","days":3}},'
        '{"type":"tool_use","id":"toolu_01B","name":"get_time","input":{}}]',
        stop="tool_use",
    ).replace(b'"output_tokens":15', b'"output_tokens":60')
    assert json_outcome(body) == stream_outcome(streams.TOOLS)


def test_redacted_thinking_and_order() -> None:
    body = _body('[{"type":"text","text":"Done."},{"type":"redacted_thinking","data":"EmwKAhgBEgy3va+/opaque=="}]')
    message = json_outcome(body).message
    assert message is not None
    assert message.content == [
        RedactedThinkingBlock(data="EmwKAhgBEgy3va+/opaque=="),
        TextBlock(text="Done."),
    ]


@pytest.mark.parametrize(
    ("wire_input", "arguments", "raw"),
    [
        ("{}", {}, None),
        ("null", {}, None),
        ('"{\\"a\\": 1}"', {"a": 1}, None),
        ('"not json"', {}, "not json"),
        ("[1, 2]", {}, "[1,2]"),
    ],
)
def test_tool_use_input_shapes(wire_input: str, arguments: dict[str, int], raw: str | None) -> None:
    body = _body(f'[{{"type":"tool_use","id":"toolu_1","name":"f","input":{wire_input}}}]', stop="tool_use")
    message = json_outcome(body).message
    assert message is not None
    assert message.content == [ToolCallBlock(id="toolu_1", name="f", arguments=arguments, raw_arguments=raw)]


def test_server_tool_blocks_are_kept_whole_and_citations_skipped() -> None:
    body = _body(
        '[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},'
        '{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},'
        '{"type":"text","text":"Sunny.","citations":[{"type":"web_search_result_location","url":"u"}]}]'
    )
    message = json_outcome(body).message
    assert message is not None
    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}
    result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
    assert message.content == [
        ServerToolBlock(dialect="anthropic", name="server_tool_use", id="srvtoolu_1", data=use),
        ServerToolBlock(dialect="anthropic", name="web_search_tool_result", id="srvtoolu_1", data=result),
        TextBlock(text="Sunny."),
    ]
    assert message.stop_reason == "stop"  # a server tool is not a client tool call


def test_empty_text_blocks_are_dropped_and_thinking_without_signature_kept() -> None:
    body = _body('[{"type":"text","text":""},{"type":"thinking","thinking":"hm"}]')
    message = json_outcome(body).message
    assert message is not None
    assert message.content == [ThinkingBlock(thinking="hm")]


def test_usage_without_cache_fields() -> None:
    message = decode({"type": "message", "content": [], "usage": {"input_tokens": 3, "output_tokens": 4}}, PROFILE)
    assert message.usage == Usage(input_tokens=3, output_tokens=4)
    assert message.stop_reason is None


def test_error_envelope_in_a_success_body_is_an_error() -> None:
    outcome = json_outcome(b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')
    assert outcome.error is not None
    assert outcome.error.kind == "overloaded"


@pytest.mark.parametrize(("data", "where"), [([], "response body"), ({"content": "x"}, "content")])
def test_malformed_bodies_are_corrupt_input(data: object, where: str) -> None:
    with pytest.raises(WireFormatError, match=where):
        decode(data, PROFILE)


def test_codec_surface() -> None:
    assert CODEC.dialect == PROFILE.dialect == "anthropic"
    assert (CODEC.decode, CODEC.encode, CODEC.classify, CODEC.stream) == (
        decode,
        encode,
        classify,
        AnthropicStream,
    )
    assert CODEC.stream_content_types == ("text/event-stream",)
