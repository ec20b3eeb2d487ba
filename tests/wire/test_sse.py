"""SSE decoding follows the WHATWG event-stream rules and is identical for any split of the bytes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.exceptions import WireFormatError
from conformance.wire import SSEDecoder, SSEEvent, parse_sse


def decode_in(chunks: list[bytes]) -> list[SSEEvent]:
    decoder = SSEDecoder()
    out: list[SSEEvent] = []
    for chunk in chunks:
        out += decoder.feed(chunk)
    return out + decoder.finish()


def test_data_only_frames() -> None:
    body = b'data: {"a":1}\n\ndata: [DONE]\n\n'
    assert parse_sse(body) == [SSEEvent("message", '{"a":1}'), SSEEvent("message", "[DONE]")]


def test_event_names_and_multiline_data() -> None:
    body = b"event: message_start\ndata: line one\ndata: line two\n\n"
    assert parse_sse(body) == [SSEEvent("message_start", "line one\nline two")]


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending(newline: bytes) -> None:
    body = newline.join([b"event: ping", b"data: {}", b"", b"data: x", b"", b""])
    assert parse_sse(body) == [SSEEvent("ping", "{}"), SSEEvent("message", "x")]


def test_comments_are_skipped_and_kept_aside() -> None:
    decoder = SSEDecoder()
    events = decoder.feed(b": OPENROUTER PROCESSING\n\ndata: 1\n\n") + decoder.finish()
    assert events == [SSEEvent("message", "1")]
    assert decoder.comments == ["OPENROUTER PROCESSING"]


def test_field_without_space_and_without_colon() -> None:
    # "data:x" keeps x; a bare "data" line appends an empty line.
    assert parse_sse(b"data:x\ndata\n\n") == [SSEEvent("message", "x\n")]


def test_only_one_leading_space_is_removed() -> None:
    assert parse_sse(b"data:  two spaces\n\n") == [SSEEvent("message", " two spaces")]


def test_event_without_data_is_not_dispatched() -> None:
    assert parse_sse(b"event: lonely\n\ndata: a\n\n") == [SSEEvent("message", "a")]


def test_id_persists_and_retry_needs_digits() -> None:
    events = parse_sse(b"id: 7\nretry: 1500\ndata: a\n\nretry: soon\ndata: b\n\n")
    assert events == [SSEEvent("message", "a", "7", 1500), SSEEvent("message", "b", "7", None)]


def test_id_with_nul_is_ignored() -> None:
    assert parse_sse(b"id: a\x00b\ndata: x\n\n") == [SSEEvent("message", "x", None)]


def test_unknown_fields_are_ignored() -> None:
    assert parse_sse(b"foo: bar\ndata: x\n\n") == [SSEEvent("message", "x")]


def test_leading_bom_is_stripped_once() -> None:
    assert parse_sse("\ufeffdata: a\n\n".encode()) == [SSEEvent("message", "a")]


def test_last_event_without_trailing_blank_line_is_dispatched() -> None:
    assert parse_sse(b"data: a\n\ndata: b") == [SSEEvent("message", "a"), SSEEvent("message", "b")]


def test_invalid_utf8_is_a_typed_error_naming_the_byte() -> None:
    with pytest.raises(WireFormatError, match="byte 6"):
        parse_sse(b"data: \xff\n\n")


def test_stream_ending_inside_a_multibyte_character() -> None:
    decoder = SSEDecoder()
    decoder.feed("data: é".encode()[:-1])
    with pytest.raises(WireFormatError, match="UTF-8"):
        decoder.finish()


SAMPLE = (
    "\ufeff: keep-alive\r\n"
    "event: message_start\r\n"
    'data: {"type":"message_start","text":"café ☕ 日本"}\r\n'
    "\r\n"
    "data: first\rdata: second\r\r"
    "id: 42\n"
    "data: 𝄞 clef\n"
    "\n"
    "event: error\n"
    'data: {"error": {"message": "boom"}}\n'
    "\n"
    "data: [DONE]"
).encode()


@given(st.lists(st.integers(min_value=0, max_value=len(SAMPLE)), max_size=12))
def test_any_split_gives_the_same_frames(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    chunks = [SAMPLE[a:b] for a, b in zip([0, *points], [*points, len(SAMPLE)], strict=True)]
    assert decode_in(chunks) == parse_sse(SAMPLE)


def test_every_single_split_point() -> None:
    whole = parse_sse(SAMPLE)
    assert len(whole) == 5
    for i in range(len(SAMPLE) + 1):
        assert decode_in([SAMPLE[:i], SAMPLE[i:]]) == whole, i


def test_one_byte_at_a_time() -> None:
    assert decode_in([bytes([b]) for b in SAMPLE]) == parse_sse(SAMPLE)


def reference_events(text: str) -> list[SSEEvent]:
    """The WHATWG algorithm line by line (LF endings only), plus the final undispatched event."""
    events: list[SSEEvent] = []
    data: list[str] = []
    name, last_id, retry = "", None, None
    for line in [*text.split("\n"), ""]:
        if not line:
            if data:
                events.append(SSEEvent(name or "message", "\n".join(data), last_id, retry))
            data, name, retry = [], "", None
            continue
        if line.startswith(":"):
            continue
        field, colon, value = line.partition(":")
        value = value[1:] if colon and value.startswith(" ") else value
        if field == "data":
            data.append(value)
        elif field == "event":
            name = value
        elif field == "id" and "\0" not in value:
            last_id = value
        elif field == "retry" and value.isascii() and value.isdigit():
            retry = int(value)
    return events


LINES = st.sampled_from(
    [
        "",
        "",
        "data: x",
        'data: {"a": "é☕"}',
        "data:y",
        "data",
        "data: ",
        "event: delta",
        "event: ",
        "event:",
        "event: error",
        "id: 7",
        "id",
        "retry: 30",
        "retry: x",
        ": keep-alive",
        "other: z",
    ]
)


@given(st.lists(LINES, max_size=40), st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_lf_streams_match_the_line_by_line_algorithm(lines: list[str], cuts: list[int]) -> None:
    """Events read as whole blocks (the LF fast path) are the events the spec's line loop gives."""
    body = "\n".join(lines).encode()
    points = sorted({min(c, len(body)) for c in cuts})
    chunks = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]
    assert decode_in(chunks) == reference_events("\n".join(lines))
