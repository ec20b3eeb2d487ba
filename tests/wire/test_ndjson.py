from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.wire import NDJSONDecoder, NDJSONRecord, parse_ndjson

BODY = b'{"a": "caf\xc3\xa9"}\n\n{"b": 2}\n{"broken": \n{"c": 3}'


def test_records_blank_lines_and_bad_lines() -> None:
    records = parse_ndjson(BODY)
    assert [r.value for r in records] == [{"a": "café"}, {"b": 2}, None, {"c": 3}]
    assert [r.line for r in records] == [1, 3, 4, 5]
    assert records[2].error is not None and records[2].raw == '{"broken":'


def test_crlf_lines() -> None:
    assert [r.value for r in parse_ndjson(b'{"a":1}\r\n{"b":2}\r\n')] == [{"a": 1}, {"b": 2}]


@given(st.lists(st.integers(min_value=0, max_value=len(BODY)), max_size=8))
def test_any_split(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    decoder = NDJSONDecoder()
    out: list[NDJSONRecord] = []
    for a, b in zip([0, *points], [*points, len(BODY)], strict=True):
        out += decoder.feed(BODY[a:b])
    assert out + decoder.finish() == parse_ndjson(BODY)
