"""Fetch the recordings the manifest lists into a local cache, each checked against its hash.

The cache is laid out as the corpus is (`<provider>/<api>/<file>.yaml` and a `catalog.json`
written from the manifest), so everything that reads the corpus reads the cache too. A source is
either each recording's raw file in its repository at the pinned commit (the default), or a base
address (`https://…`, `file://…`) or a folder holding a copy of the corpus by path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import urllib.error
import urllib.request
from pathlib import Path

from conformance.evidence.manifest import Manifest, Recording
from conformance.fileio import atomic_write, read_regular

RAW = "https://raw.githubusercontent.com/{source_repo}/{commit}/{source_path}"
"""Where a recording's file is in its source repository at its commit."""

TIMEOUT_S = 30.0


def cache_dir() -> Path:
    """`$CONFORMANCE_CACHE`, else `$XDG_CACHE_HOME/conformance/corpus`, else `~/.cache/conformance/corpus`."""
    if env := os.environ.get("CONFORMANCE_CACHE"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "conformance" / "corpus"


def address(rec: Recording, source: str | None) -> str:
    """Where `rec` is fetched from: its raw source file, or `source` + its corpus path."""
    if source is None:
        return RAW.format(source_repo=rec.source_repo, commit=rec.commit, source_path=rec.source_path)
    if "://" not in source:
        return Path(source, rec.path).resolve().as_uri()
    return source.rstrip("/") + "/" + rec.path


@dataclasses.dataclass
class Fetched:
    """How one recording fared: `cached` (already there), `fetched`, or `failed` with why."""

    path: str
    state: str
    why: str = ""


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:  # http(s) and file only
        return bytes(response.read())


def fetch_one(rec: Recording, cache: Path, source: str | None) -> Fetched:
    target = cache / rec.path
    if target.is_file() and hashlib.sha256(read_regular(target)).hexdigest() == rec.sha256:
        return Fetched(rec.path, "cached")
    url = address(rec, source)
    if not url.startswith(("https://", "http://", "file://")):
        return Fetched(rec.path, "failed", f"{url}: not an http(s) or file address")
    try:
        data = _get(url)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return Fetched(rec.path, "failed", f"{url}: {getattr(exc, 'reason', exc)}")
    digest = hashlib.sha256(data).hexdigest()
    if digest != rec.sha256:
        return Fetched(rec.path, "failed", f"{url}: sha256 {digest[:12]}… is not the manifest's {rec.sha256[:12]}…")
    atomic_write(target, data)
    return Fetched(rec.path, "fetched")


def catalog_of(manifest: Manifest) -> list[dict[str, object]]:
    """The corpus catalog entries of the manifest's recordings (what the corpus readers need)."""
    return [
        {
            "path": r.path,
            "source_repo": r.source_repo,
            "source_path": r.source_path,
            "commit": r.commit,
            "license": r.license,
            "provider": r.corpus_provider,
            "api": r.api,
            "n_interactions": r.facts.interactions,
        }
        for r in manifest.recordings
    ]


def fetch(manifest: Manifest, cache: Path, source: str | None = None) -> list[Fetched]:
    """Fetch every recording of `manifest` into `cache` and write its catalog; one result each."""
    results = [fetch_one(rec, cache, source) for rec in manifest.recordings]
    have = {r.path for r in results if r.state != "failed"}
    kept = manifest.model_copy(update={"recordings": [r for r in manifest.recordings if r.path in have]})
    atomic_write(cache / "catalog.json", json.dumps(catalog_of(kept), indent=1) + "\n")
    return results
