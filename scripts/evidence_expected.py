"""Write `corpus/expected/<recording>.json`: the expected normalized form of every generation call of
the corpus, and how the dialect's official SDK reads the same bytes (`conformance.evidence.expected`).

Each form is the reference decode of the call, kept only as reviewed data: the SDK comparators of
`tests/evidence/test_corpus.py` read the same bytes and say, per call, `agree`, `explained: <the
SDK's known fault>` or `disagree: <difference>` (not judged until explained). Rerun after the
corpus or the reference decode changes; files of recordings no longer in the catalog are removed.
`tests/evidence/test_expected.py` checks that the committed files are what this writes.

    python scripts/evidence_expected.py [--corpus DIR]   # default: the repository's corpus/
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.evidence.corpus import API_DIALECTS, read_catalog, read_entry
from conformance.evidence.derive import sha256
from conformance.evidence.expected import EXPECTED_DIR, ExpectedCall, ExpectedFile, expected_path, render
from conformance.exceptions import InputError
from conformance.fileio import atomic_write, read_regular

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.evidence.test_corpus import sdk_status  # noqa: E402


def forms_of(corpus: Path, entry: dict[str, object]) -> ExpectedFile | None:
    """The expected forms of one catalog entry; None when it has no generation call read here."""
    dialect = API_DIALECTS.get(str(entry["api"]))
    if dialect is None:
        return None
    data = read_regular(corpus / str(entry["path"]))
    calls, _ = read_entry(corpus, dict(entry), data=data)
    forms: list[ExpectedCall] = []
    for it in calls:
        try:
            outcome = it.decode()
        except InputError as exc:
            print(f"{it.where}: not decoded, left out: {exc}", file=sys.stderr)
            continue
        forms.append(ExpectedCall(index=it.index, sdk=sdk_status(it, outcome), outcome=outcome.to_json()))
    if not forms:
        return None
    return ExpectedFile(recording=str(entry["path"]), sha256=sha256(data), calls=forms)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "corpus", help="corpus folder with catalog.json")
    args = parser.parse_args()
    corpus: Path = args.corpus
    written = unchanged = removed = 0
    keep: set[Path] = set()
    for entry in sorted(read_catalog(corpus), key=lambda e: str(e["path"])):
        forms = forms_of(corpus, entry)
        if forms is None:
            continue
        path = expected_path(corpus, forms.recording)
        keep.add(path)
        text = render(forms)
        if path.is_file() and read_regular(path).decode() == text:
            unchanged += 1
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text)
        written += 1
    for stale in sorted((corpus / EXPECTED_DIR).rglob("*.json")):
        if stale not in keep:
            stale.unlink()
            removed += 1
    print(f"expected forms in {corpus / EXPECTED_DIR}: {written} written, {unchanged} unchanged, {removed} removed")
    unjudged = [
        f"{f.recording}#{c.index}: {c.sdk}"
        for p in sorted(keep)
        for f in [ExpectedFile.model_validate_json(read_regular(p))]
        for c in f.calls
        if not c.judged
    ]
    for line in unjudged:
        print(f"not judged until explained: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
