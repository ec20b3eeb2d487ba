"""Write `src/conformance/evidence/manifest.json` from the corpus (`$CONFORMANCE_CORPUS`,
`../shared/corpus` or the fetch cache): every recording a dialect here reads, the cells it backs
and how its decode compares with the official SDK. `conformance evidence derive` and
`tests/evidence/test_manifest.py` check that the committed file is what this writes.

The hash of each recording's source file (`source_sha256`) is carried over from the committed
manifest; for a recording new to it, `--raw BASE` (default https://raw.githubusercontent.com)
downloads the source file, checks that it converts to the corpus file byte for byte, and keeps
its hash.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from conformance.evidence.convert import to_corpus_form
from conformance.evidence.fetch import RAW_BASE, _get, address
from conformance.evidence.manifest import Manifest, Recording, bundled_manifest
from conformance.fileio import atomic_write, read_regular

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.evidence import corpus  # noqa: E402
from tests.evidence.test_corpus import COMPARATORS  # noqa: E402

TARGET = ROOT / "src" / "conformance" / "evidence" / "manifest.json"


def source_hash(rec: Recording, raw: str) -> str:
    """The SHA-256 of `rec`'s source file, checked to convert to the corpus file byte for byte."""
    data = _get(address(rec, None, raw))
    if to_corpus_form(data, rec.original_format, rec.test_request) != read_regular(corpus.CORPUS / rec.path):
        raise SystemExit(f"{rec.path}: the source file does not convert to the corpus file")
    return hashlib.sha256(data).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", default=RAW_BASE, help="host of the repositories' files at a commit")
    args = parser.parse_args()
    if not corpus.PRESENT:
        print(corpus.ABSENT, file=sys.stderr)
        return 2
    previous = bundled_manifest() if TARGET.is_file() else Manifest()
    manifest = corpus.rederive(previous, COMPARATORS)
    for rec in manifest.recordings:
        if not rec.source_sha256:
            rec.source_sha256 = source_hash(rec, args.raw)
    atomic_write(TARGET, manifest.model_dump_json(indent=1, exclude_none=True) + "\n")
    print(f"wrote {TARGET.relative_to(ROOT)}: {len(manifest.recordings)} recordings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
