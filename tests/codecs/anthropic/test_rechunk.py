"""Every stream body of these tests decodes the same for any split of its bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codecs.anthropic.helpers import split, stream_events, stream_outcome
from tests.codecs.anthropic.streams import STREAMS


@pytest.mark.parametrize("name", sorted(STREAMS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_chunking_gives_the_same_outcome_and_events(name: str, data: st.DataObject) -> None:
    body = STREAMS[name]
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(body)), max_size=40), label="cuts")
    assert b"".join(split(body, cuts)) == body
    assert stream_outcome(body, cuts) == stream_outcome(body, [])
    assert stream_events(body, cuts) == stream_events(body, [])


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_byte_by_byte_feeding(name: str) -> None:
    """One byte per chunk splits every multibyte character and every CRLF."""
    body = STREAMS[name]
    cuts = list(range(len(body)))
    assert stream_outcome(body, cuts) == stream_outcome(body, [])
    assert stream_events(body, cuts) == stream_events(body, [])
