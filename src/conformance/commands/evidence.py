"""`conformance evidence`: the public recordings behind the matrix.

- `evidence list` prints, per provider, the cells real recordings back and where they come from;
- `evidence fetch` brings the listed recordings into the local cache: each file of its repository at
  the pinned commit, checked against its hash, converted to the corpus form where the manifest
  says its project recorded another format, and checked again (or a copy of the corpus, `--from`);
- `evidence derive` draws the facts again from the corpus (the cache, or `--corpus`) and compares
  them with the manifest (exit 1 on any difference).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("evidence", help="the public real recordings behind the matrix: list, fetch, derive")
    verbs = p.add_subparsers(dest="verb", required=True)
    listing = verbs.add_parser("list", help="cells backed by real recordings, per provider, with their sources")
    listing.set_defaults(func=run_list)
    fetch = verbs.add_parser("fetch", help="fetch the listed recordings into the cache, checking each hash")
    fetch.add_argument("--cache", help="cache folder (default: $CONFORMANCE_CACHE or ~/.cache/conformance/corpus)")
    fetch.add_argument(
        "--from",
        dest="source",
        help="a copy of the corpus by path: a folder or an http(s)/file address "
        "(default: each recording's raw file in its repository at the pinned commit)",
    )
    fetch.add_argument(
        "--raw",
        default=None,
        help="the host serving repository files as <owner>/<name>/<commit>/<path> "
        "(default: https://raw.githubusercontent.com)",
    )
    fetch.set_defaults(func=run_fetch)
    derive = verbs.add_parser("derive", help="draw the facts again from the corpus and compare with the manifest")
    derive.add_argument("--corpus", help="corpus folder with catalog.json (default: the cache)")
    derive.set_defaults(func=run_derive)


def _cache(args: argparse.Namespace) -> Path:
    from conformance.evidence.fetch import cache_dir

    return Path(args.cache) if args.cache else cache_dir()


def run_list(args: argparse.Namespace) -> int:
    from conformance.evidence.manifest import bundled_manifest, sources

    manifest = bundled_manifest()
    by_provider: dict[str, set[str]] = {}
    for provider, feature in manifest.backing():
        by_provider.setdefault(provider, set()).add(feature)
    for provider in sorted(by_provider):
        recs = [r for r in manifest.recordings if r.provider == provider]
        cells = len(by_provider[provider])
        print(f"{provider}: {cells} cells from {len(recs)} recordings ({', '.join(sources(recs))})")
        print(f"  {' '.join(sorted(by_provider[provider]))}")
    return 0


HOW_TO_GET = (
    "with a network, run `conformance evidence fetch` again; else copy the corpus to a folder "
    "and run `conformance evidence fetch --from FOLDER` (or point CONFORMANCE_CORPUS at it)"
)
"""How to get the recordings when none could be fetched."""


def run_fetch(args: argparse.Namespace) -> int:
    from conformance.evidence.fetch import RAW_BASE, fetch
    from conformance.evidence.manifest import bundled_manifest

    cache = _cache(args)
    results = fetch(bundled_manifest(), cache, args.source, args.raw or RAW_BASE)
    failed = [r for r in results if r.state == "failed"]
    if failed and all(r.unreachable for r in failed) and not any(r.state == "fetched" for r in results):
        print(f"no recording could be fetched into {cache} ({failed[0].why}): {HOW_TO_GET}")
        return 1
    for r in failed:
        print(f"failed {r.path}: {r.why}")
    fetched = [r for r in results if r.state == "fetched"]
    converted = sum(r.converted for r in fetched)
    cached = sum(r.state == "cached" for r in results)
    print(
        f"{len(fetched)} fetched ({converted} converted to the corpus form), {cached} already cached, "
        f"{len(failed)} failed, into {cache}"
    )
    return 1 if failed else 0


def run_derive(args: argparse.Namespace) -> int:
    from conformance.evidence.derive import derive, differences
    from conformance.evidence.fetch import cache_dir
    from conformance.evidence.manifest import bundled_manifest
    from conformance.exceptions import InputError

    corpus = Path(args.corpus) if args.corpus else cache_dir()
    if not (corpus / "catalog.json").is_file():
        raise InputError("no corpus here (no catalog.json): run `conformance evidence fetch` first", where=str(corpus))
    committed = bundled_manifest()
    derived = derive(corpus, committed)
    present = {r.path for r in derived.recordings}
    missing = len([r for r in committed.recordings if r.path not in present])
    kept = committed.model_copy(update={"recordings": [r for r in committed.recordings if r.path in present]})
    diffs = differences(kept, derived)
    for line in diffs:
        print(line)
    cells = len(derived.backing())
    print(
        f"{len(derived.recordings)} recordings re-derived from {corpus} ({missing} of the manifest absent): "
        f"{cells} cells backed, {len(diffs)} differences from the manifest"
    )
    return 1 if diffs else 0
