"""A hand-authored cassette whose `meta` carries a `recorded:` date is not live evidence: a recording
names what it contacted, as `conformance record` writes it."""

from __future__ import annotations

from conformance.replay.cassette import cassette_evidence


def test_a_recorded_date_alone_is_authored() -> None:
    assert cassette_evidence({"provider": "anthropic", "recorded": "2026-11-22"}) == "authored"


def test_a_recording_names_what_it_contacted() -> None:
    assert cassette_evidence({"recorded": "2026-11-22", "source": "recorded"}) == "recorded"
    assert cassette_evidence({"recorded": "2026-11-22", "host": "api.anthropic.com"}) == "recorded"
    assert cassette_evidence({"recorded": "2026-11-22", "host": "127.0.0.1:8765"}) == "emulated"
    assert cassette_evidence({"recorded": "2026-11-22", "source": "recorded", "authored": "by hand"}) == "authored"
