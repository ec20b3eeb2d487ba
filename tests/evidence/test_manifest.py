"""The evidence manifest: it names matrix cells, and the corpus re-derives it exactly."""

from __future__ import annotations

import re

import pytest

from conformance.capabilities import provider_names
from conformance.evidence.derive import differences
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
