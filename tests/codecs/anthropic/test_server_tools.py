"""Anthropic server-side blocks (`server_tool_use`, `web_search_tool_result`, `compaction`, …) as
`server_tool` blocks: the stream gives what the JSON body gives, the order received is kept, and
the blocks go back unchanged."""

from __future__ import annotations

import json
from typing import Any

from conformance.model import ServerToolBlock
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.validate import validate
from tests.codecs.anthropic import streams
from tests.codecs.anthropic.helpers import PROFILE, json_outcome, stream_outcome
from tests.codecs.anthropic.streams import START, STOP, block_delta, block_start, block_stop, delta, sse

USE = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "weather"}}
RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01",
    "content": [
        {"type": "web_search_result", "url": "https://example.com", "title": "Weather", "encrypted_content": "Eo8B"}
    ],
}


def _json(content: list[dict[str, Any]]) -> bytes:
    return json.dumps(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 15},
        }
    ).encode()


def test_a_stream_builds_the_input_the_json_body_holds() -> None:
    body = sse(
        START,
        block_start(0, '{"type":"thinking","thinking":"","signature":""}'),
        block_delta(0, '{"type":"thinking_delta","thinking":"Search."}'),
        block_delta(0, '{"type":"signature_delta","signature":"EqQB"}'),
        block_stop(0),
        block_start(1, '{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{}}'),
        block_delta(1, '{"type":"input_json_delta","partial_json":"{\\"query\\": "}'),
        block_delta(1, '{"type":"input_json_delta","partial_json":"\\"weather\\"}"}'),
        block_stop(1),
        block_start(2, json.dumps(RESULT)),
        block_stop(2),
        block_start(3, '{"type":"thinking","thinking":"","signature":""}'),
        block_delta(3, '{"type":"thinking_delta","thinking":"Found it."}'),
        block_delta(3, '{"type":"signature_delta","signature":"EqQC"}'),
        block_stop(3),
        block_start(4, '{"type":"text","text":""}'),
        block_delta(4, '{"type":"text_delta","text":"Sunny."}'),
        block_stop(4),
        delta("end_turn"),
        STOP,
    )
    streamed = stream_outcome(body).message
    whole = json_outcome(
        _json(
            [
                {"type": "thinking", "thinking": "Search.", "signature": "EqQB"},
                USE,
                RESULT,
                {"type": "thinking", "thinking": "Found it.", "signature": "EqQC"},
                {"type": "text", "text": "Sunny."},
            ]
        )
    ).message
    assert streamed is not None and whole is not None
    assert streamed.content == whole.content
    # interleaved thinking stays between the blocks it came between
    assert [b.type for b in whole.content] == ["thinking", "server_tool", "server_tool", "thinking", "text"]


FALLBACK = {
    "type": "fallback",
    "from": {"model": "claude-fable-5"},
    "to": {"model": "claude-opus-4-8"},
    "trigger": {"type": "refusal"},
}


def test_a_fallback_block_is_kept_where_one_model_gave_way_to_the_next() -> None:
    """Server-side fallback: the `fallback` block arrives like a server-tool block (start and stop,
    no deltas) and is kept whole in its place, from a stream and a JSON body alike."""
    body = sse(
        START,
        block_start(0, json.dumps(FALLBACK)),
        block_stop(0),
        block_start(1, '{"type":"text","text":""}'),
        block_delta(1, '{"type":"text_delta","text":"Gutenberg."}'),
        block_stop(1),
        delta("end_turn"),
        STOP,
    )
    streamed = stream_outcome(body).message
    whole = json_outcome(_json([FALLBACK, {"type": "text", "text": "Gutenberg."}])).message
    assert streamed is not None and whole is not None
    assert streamed.content == whole.content
    assert whole.content[0] == ServerToolBlock(dialect="anthropic", name="fallback", data=FALLBACK)
    assert [b.type for b in whole.content] == ["server_tool", "text"]


def test_compaction_text_arrives_in_deltas() -> None:
    body = sse(
        START,
        block_start(0, '{"type":"compaction","content":null}'),
        block_delta(0, '{"type":"compaction_delta","content":"The user asked "}'),
        block_delta(0, '{"type":"compaction_delta","content":"for a greeting."}'),
        block_stop(0),
        block_start(1, '{"type":"text","text":"Hello."}'),
        block_stop(1),
        delta("end_turn"),
        STOP,
    )
    message = stream_outcome(body).message
    assert message is not None
    assert message.content[0] == ServerToolBlock(
        dialect="anthropic", name="compaction", data={"type": "compaction", "content": "The user asked for a greeting."}
    )


def test_a_cut_input_keeps_the_block_as_it_started() -> None:
    body = sse(
        START,
        block_start(0, '{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{}}'),
        block_delta(0, '{"type":"input_json_delta","partial_json":"{\\"query\\": \\"wea"}'),
    )
    outcome = stream_outcome(body)
    assert outcome.error is not None and outcome.error.kind == "stream_interrupted"
    assert outcome.partial is not None
    assert outcome.partial.content == [
        ServerToolBlock(
            dialect="anthropic",
            name="server_tool_use",
            id="srvtoolu_01",
            data={"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}},
        )
    ]


def test_the_fixture_stream_agrees_with_its_json_form() -> None:
    streamed = stream_outcome(streams.SERVER_TOOLS).message
    assert streamed is not None
    assert streamed.content[:2] == [
        ServerToolBlock(dialect="anthropic", name="server_tool_use", id="srvtoolu_01", data=USE),
        ServerToolBlock(
            dialect="anthropic",
            name="web_search_tool_result",
            id="srvtoolu_01",
            data={"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []},
        ),
    ]


def _conversation(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": content},
            {"role": "user", "content": "And tomorrow?"},
        ],
        "options": {"max_tokens": 1024},
    }


def test_history_sends_the_blocks_back_unchanged() -> None:
    content = [
        {"type": "server_tool", "dialect": "anthropic", "name": "server_tool_use", "id": "srvtoolu_01", "data": USE},
        {"type": "server_tool", "dialect": "anthropic", "name": "web_search_tool_result", "data": RESULT},
        {"type": "text", "text": "Sunny."},
    ]
    body = ReferenceRuntime().encode(_conversation(content), "anthropic")
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [USE, RESULT, {"type": "text", "text": "Sunny."}],
    }
    assert validate(body, PROFILE) == []


def test_a_responses_item_is_not_sent_to_anthropic() -> None:
    item = {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search"}}
    content = [
        {"type": "server_tool", "dialect": "openai_responses", "name": "web_search_call", "data": item},
        {"type": "text", "text": "Sunny."},
    ]
    body = ReferenceRuntime().encode(_conversation(content), "anthropic")
    assert body["messages"][1]["content"] == [{"type": "text", "text": "Sunny."}]


def test_a_block_whose_type_is_not_a_string_is_no_server_block() -> None:
    # hostile input: a list is no block type (it used to crash the server-block lookup)
    outcome = json_outcome(_json([{"type": ["server_tool_use"], "id": "srvtoolu_1"}, {"type": "text", "text": "ok"}]))
    assert outcome.message is not None
    assert [b.type for b in outcome.message.content] == ["text"]
