"""Hand-written Anthropic Messages SSE bodies, shaped after the wire reference (section 3.4).

Every body here is also checked under arbitrary re-chunking (`test_rechunk.py`): add new ones to
`STREAMS`.
"""

from __future__ import annotations


def sse(*frames: tuple[str, str]) -> bytes:
    """`(event, data)` pairs → an `event:` + `data:` stream, each event ended by a blank line."""
    return "".join(f"event: {event}\ndata: {data}\n\n" for event, data in frames).encode()


START = (
    "message_start",
    '{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant",'
    '"model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,'
    '"usage":{"input_tokens":25,"output_tokens":1,"cache_read_input_tokens":10,'
    '"cache_creation_input_tokens":5}}}',
)
PING = ("ping", '{"type": "ping"}')
STOP = ("message_stop", '{"type":"message_stop"}')


def delta(stop_reason: str, usage: str = '{"output_tokens":15}') -> tuple[str, str]:
    return (
        "message_delta",
        f'{{"type":"message_delta","delta":{{"stop_reason":"{stop_reason}","stop_sequence":null}},"usage":{usage}}}',
    )


def block_start(index: int, block: str) -> tuple[str, str]:
    return (
        "content_block_start",
        f'{{"type":"content_block_start","index":{index},"content_block":{block}}}',
    )


def block_delta(index: int, delta: str) -> tuple[str, str]:
    return ("content_block_delta", f'{{"type":"content_block_delta","index":{index},"delta":{delta}}}')


def block_stop(index: int) -> tuple[str, str]:
    return ("content_block_stop", f'{{"type":"content_block_stop","index":{index}}}')


TEXT = sse(
    START,
    block_start(0, '{"type":"text","text":""}'),
    PING,
    block_delta(0, '{"type":"text_delta","text":"Héllo, "}'),
    block_delta(0, '{"type":"text_delta","text":"wörld 🌍!"}'),
    block_stop(0),
    delta("end_turn"),
    STOP,
)
"""Text in two deltas with multibyte characters; a ping between blocks."""

TOOLS = sse(
    START,
    block_start(0, '{"type":"text","text":""}'),
    block_delta(0, '{"type":"text_delta","text":"Checking."}'),
    block_stop(0),
    block_start(1, '{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{}}'),
    block_delta(1, '{"type":"input_json_delta","partial_json":""}'),
    block_delta(1, '{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Par"}'),
    block_delta(1, '{"type":"input_json_delta","partial_json":"is\\", \\"days\\": 3}"}'),
    block_stop(1),
    block_start(2, '{"type":"tool_use","id":"toolu_01B","name":"get_time","input":{}}'),
    block_delta(2, '{"type":"input_json_delta","partial_json":""}'),
    block_stop(2),
    delta("tool_use", '{"output_tokens":60}'),
    STOP,
)
"""Text, then a tool call with its input in fragments, then a no-argument tool call."""

BAD_ARGS = sse(
    START,
    block_start(0, '{"type":"tool_use","id":"toolu_01C","name":"get_weather","input":{}}'),
    block_delta(0, '{"type":"input_json_delta","partial_json":"{\\"city\\": "}'),
    block_delta(0, '{"type":"input_json_delta","partial_json":"Paris}"}'),
    block_stop(0),
    delta("tool_use"),
    STOP,
)
"""Tool input fragments that do not concatenate to valid JSON."""

SIGNATURE = "EqQBCkgIARABGAIiQL+/9x==\\u002b/abc"
"""As written in the JSON string: `\\u002b` is an escaped `+`."""

THINKING = sse(
    START,
    block_start(0, '{"type":"thinking","thinking":"","signature":""}'),
    block_delta(0, '{"type":"thinking_delta","thinking":"Let me think: "}'),
    block_delta(0, '{"type":"thinking_delta","thinking":"2 + 2 = 4."}'),
    block_delta(0, f'{{"type":"signature_delta","signature":"{SIGNATURE}"}}'),
    block_stop(0),
    block_start(1, '{"type":"text","text":""}'),
    block_delta(1, '{"type":"text_delta","text":"4"}'),
    block_stop(1),
    delta(
        "end_turn",
        '{"input_tokens":25,"output_tokens":80,"cache_read_input_tokens":10,'
        '"cache_creation_input_tokens":5,"output_tokens_details":{"thinking_tokens":70}}',
    ),
    STOP,
)
"""Thinking with a signature, then text; `message_delta` repeats the input counts."""

REDACTED = sse(
    START,
    block_start(0, '{"type":"redacted_thinking","data":"EmwKAhgBEgy3va+/opaque=="}'),
    block_stop(0),
    block_start(1, '{"type":"text","text":"Done."}'),
    block_stop(1),
    delta("end_turn"),
    STOP,
)
"""A redacted thinking block (opaque data, no deltas) and text given whole in the start event."""

MID_STREAM_ERROR = sse(
    START,
    block_start(0, '{"type":"text","text":""}'),
    block_delta(0, '{"type":"text_delta","text":"Partial ans"}'),
    ("error", '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
)
"""An `event: error` after HTTP 200: no `message_stop` follows."""

CUT = sse(
    START,
    block_start(0, '{"type":"text","text":""}'),
    block_delta(0, '{"type":"text_delta","text":"Once upon"}'),
    block_stop(0),
    delta("end_turn"),
)
"""The connection closed before `message_stop`."""

CUT_MID_EVENT = TEXT[: TEXT.index("wörld".encode())]
"""Cut in the middle of a `data:` line."""

SERVER_TOOLS = sse(
    START,
    block_start(0, '{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{}}'),
    block_delta(0, '{"type":"input_json_delta","partial_json":"{\\"query\\": \\"weather\\"}"}'),
    block_stop(0),
    block_start(1, '{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[]}'),
    block_stop(1),
    ("future_event", '{"type":"future_event","detail":1}'),
    block_start(2, '{"type":"text","text":"","citations":[]}'),
    block_delta(2, '{"type":"text_delta","text":"Sunny."}'),
    block_delta(2, '{"type":"citations_delta","citation":{"type":"web_search_result_location","url":"u"}}'),
    block_stop(2),
    delta("end_turn"),
    STOP,
)
"""Server-side tool blocks (kept whole), an unknown event type and a citations delta (ignored)."""

TEXT_BEFORE_THINKING = sse(
    START,
    block_start(0, '{"type":"text","text":""}'),
    block_delta(0, '{"type":"text_delta","text":"Answer"}'),
    block_stop(0),
    block_start(1, '{"type":"thinking","thinking":""}'),
    block_delta(1, '{"type":"thinking_delta","thinking":"afterthought"}'),
    block_delta(1, '{"type":"signature_delta","signature":"sig"}'),
    block_stop(1),
    delta("max_tokens"),
    STOP,
)
"""Thinking that arrives after text; the message puts it first."""

CRLF = TEXT.replace(b"\n", b"\r\n")
"""The text stream with CRLF line ends."""

STREAMS: dict[str, bytes] = {
    "text": TEXT,
    "tools": TOOLS,
    "bad_args": BAD_ARGS,
    "thinking": THINKING,
    "redacted": REDACTED,
    "mid_stream_error": MID_STREAM_ERROR,
    "cut": CUT,
    "cut_mid_event": CUT_MID_EVENT,
    "server_tools": SERVER_TOOLS,
    "text_before_thinking": TEXT_BEFORE_THINKING,
    "crlf": CRLF,
}
