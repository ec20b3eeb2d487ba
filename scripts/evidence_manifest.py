"""Write `src/conformance/evidence/manifest.json` from the corpus (`$CONFORMANCE_CORPUS`,
`../shared/corpus` or the fetch cache): every recording a dialect here reads, the cells it backs
and how its decode compares with the official SDK. `conformance evidence derive` and
`tests/evidence/test_manifest.py` check that the committed file is what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from conformance.evidence.manifest import Manifest, bundled_manifest
from conformance.fileio import atomic_write

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.evidence import corpus  # noqa: E402
from tests.evidence.test_corpus import COMPARATORS  # noqa: E402

TARGET = ROOT / "src" / "conformance" / "evidence" / "manifest.json"


def main() -> int:
    if not corpus.PRESENT:
        print(corpus.ABSENT, file=sys.stderr)
        return 2
    previous = bundled_manifest() if TARGET.is_file() else Manifest()
    manifest = corpus.rederive(previous, COMPARATORS)
    atomic_write(TARGET, manifest.model_dump_json(indent=1) + "\n")
    print(f"wrote {TARGET.relative_to(ROOT)}: {len(manifest.recordings)} recordings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
