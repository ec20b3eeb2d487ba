"""Which cells public real recordings back, read from the evidence manifest shipped with the
package (so a clone without the recordings still shows it)."""

from __future__ import annotations

import functools

from conformance.evidence.manifest import Manifest, bundled_manifest, sources
from conformance.report.matrix import RealBacking

FILES_SHOWN = 5


def real_backing(manifest: Manifest) -> dict[tuple[str, str], RealBacking]:
    """(provider, feature) → the real recordings behind that cell."""
    return {
        key: RealBacking(
            recordings=len(recs),
            calls=sum(r.facts.calls for r in recs),
            sdk_agree=sum(r.facts.sdk_agree for r in recs),
            sources=sources(recs),
            files=[r.source_url for r in recs[:FILES_SHOWN]],
        )
        for key, recs in manifest.backing().items()
    }


@functools.cache
def bundled_backing() -> dict[tuple[str, str], RealBacking]:
    """`real_backing` of the bundled manifest, read once."""
    return real_backing(bundled_manifest())
