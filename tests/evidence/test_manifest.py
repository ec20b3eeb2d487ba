"""The evidence manifest: it names matrix cells, and the corpus re-derives it exactly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.capabilities import provider_names
from conformance.evidence.convert import FORMATS
from conformance.evidence.derive import derive, differences
from conformance.evidence.fetch import fetch
from conformance.evidence.manifest import bundled_manifest
from conformance.scenarios import FEATURES
from tests.evidence import corpus
from tests.evidence.test_corpus import COMPARATORS


def test_the_bundled_manifest_names_recordings_and_cells() -> None:
    manifest = bundled_manifest()
    features = {f.id for f in FEATURES}
    assert manifest.recordings
    for rec in manifest.recordings:
        assert rec.provider in provider_names(), rec.path
        assert set(rec.features) <= features, rec.path
        assert re.fullmatch(r"[0-9a-f]{64}", rec.sha256), rec.path
        assert re.fullmatch(r"[0-9a-f]{64}", rec.source_sha256), rec.path
        assert rec.original_format in FORMATS, rec.path
        assert re.fullmatch(r"[0-9a-f]{40}", rec.commit), rec.path
        assert rec.license and "/" in rec.source_repo and rec.source_path, rec.path
        assert rec.facts.calls == rec.facts.sdk_agree + rec.facts.sdk_explained + rec.facts.sdk_disagree, rec.path


@pytest.mark.skipif(not corpus.PRESENT, reason=corpus.ABSENT)
def test_the_corpus_re_derives_the_committed_manifest() -> None:
    """Cells, hashes and SDK facts drawn again from the recordings are the committed ones
    (`python scripts/evidence_manifest.py` writes them after a deliberate change)."""
    committed = bundled_manifest()
    derived = corpus.rederive(committed, COMPARATORS)
    assert differences(committed, derived) == []


@pytest.mark.skipif(not corpus.PRESENT, reason=corpus.ABSENT)
def test_the_recordings_fetched_into_a_cache_re_derive_the_committed_facts(tmp_path: Path) -> None:
    """Every listed recording fetched from a copy of the corpus passes its hash check, and the
    cache it fills reads as the corpus: the facts drawn from it are the committed ones."""
    committed = bundled_manifest()
    cache = tmp_path / "cache"
    results = fetch(committed, cache, str(corpus.CORPUS))
    assert [r for r in results if r.state != "fetched"] == []
    with corpus.parsed_once():  # the fetched copies hold the corpus's bytes: parsed once for both
        assert differences(committed, derive(cache, committed)) == []
