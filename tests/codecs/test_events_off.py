"""`codec.stream(profile, events=False)` builds no stream events and decodes the same message."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from conformance.capabilities import BuiltinDialect, get_profile
from conformance.codecs import codec_for
from conformance.codecs.base import is_stream
from conformance.replay.cassette import load_cassette

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"
STREAMS = [
    (path, i)
    for path in sorted(CASSETTES.glob("*/*.yaml"))
    for i, interaction in enumerate(load_cassette(path).interactions)
    if interaction.response.status == 200
    and is_stream(
        codec_for(get_profile(path.parent.name)),
        interaction.response.flat_headers(),
        interaction.request.stream_requested(),
    )
]


def test_there_are_streams_of_every_dialect() -> None:
    dialects = {get_profile(path.parent.name).dialect for path, _ in STREAMS}
    assert dialects == set(get_args(BuiltinDialect))


@pytest.mark.parametrize(("path", "index"), STREAMS, ids=[f"{p.parent.name}/{p.stem}#{i}" for p, i in STREAMS])
def test_same_message_without_events(path: Path, index: int) -> None:
    profile = get_profile(path.parent.name)
    body = load_cassette(path).interactions[index].response.body
    chunks = [body[i : i + 7] for i in range(0, len(body), 7)]
    with_events = codec_for(profile).stream(profile)
    without = codec_for(profile).stream(profile, events=False)
    emitted = [event for chunk in chunks for event in with_events.feed(chunk)]
    assert all(without.feed(chunk) == [] for chunk in chunks)
    assert without.finish() == with_events.finish()
    assert emitted, "a stream with events on emits at least its start"
