"""Fetch the recordings the manifest lists into a local cache, each checked against its hash.

The cache is laid out as the corpus is (`<provider>/<api>/<file>.yaml` and a `catalog.json`
written from the manifest), so everything that reads the corpus reads the cache too. A source is
either each recording's raw file in its repository at the pinned commit (the default; `raw` names
another host laid out as raw.githubusercontent.com is), or a base address (`https://…`,
`file://…`) or a folder holding a copy of the corpus by path.

Only regular files are read from a folder or a `file://` address, and only inside it (a symlink
out of it, a FIFO or a device is refused, named); every source is read in chunks up to
`MAX_RECORDING_BYTES`, and a cached file is hashed in chunks.

A file fetched from its repository is checked against the manifest's `source_sha256`, converted
from its `original_format` to the corpus form (`conformance.evidence.convert`) and checked against
`sha256`; a file from a copy of the corpus is checked against `sha256` alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from conformance.evidence import corpus
from conformance.evidence.convert import to_corpus_form
from conformance.evidence.manifest import Manifest, Recording
from conformance.exceptions import InputError
from conformance.fileio import atomic_write, inside, read_regular, sha256_regular, size_text
from conformance.jsonvalue import printable

RAW_BASE = "https://raw.githubusercontent.com"
"""The host serving each repository's files at a commit, as `<owner>/<name>/<commit>/<path>`."""

TIMEOUT_S = 30.0

MAX_RECORDING_BYTES = corpus.MAX_RECORDING_BYTES
"""Largest recording read from any source: thirty times the largest real one (2.1 MB), so a huge or
endless file (a device, a 3 GiB file) is refused before it costs memory."""

GIVE_UP_AFTER = 3
"""Recordings tried before the rest are left untried when none of them could reach its source
(no network, no such host or folder): a fetch without a network ends in seconds."""


def cache_dir() -> Path:
    """`$CONFORMANCE_CACHE`, else `$XDG_CACHE_HOME/conformance/corpus`, else `~/.cache/conformance/corpus`."""
    if env := os.environ.get("CONFORMANCE_CACHE"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "conformance" / "corpus"


def address(rec: Recording, source: str | None, raw: str = RAW_BASE) -> str:
    """Where `rec` is fetched from: its raw source file (under `raw`), or `source` + its corpus path."""
    if source is None:
        return f"{raw.rstrip('/')}/{rec.source_repo}/{rec.commit}/{rec.source_path}"
    if "://" not in source:
        return Path(os.path.abspath(Path(source, rec.path))).as_uri()  # symlinks kept: checked on reading
    return source.rstrip("/") + "/" + rec.path


@dataclasses.dataclass
class Fetched:
    """How one recording fared: `cached` (already there), `fetched` (`converted` when it was
    converted from its source format), or `failed` with why (`unreachable` when the address could
    not be reached at all: no network, no such host or folder)."""

    path: str
    state: str
    why: str = ""
    converted: bool = False
    unreachable: bool = False


def _read(url: str, source: str | None) -> bytes:
    """The bytes at `url`: a file inside the folder `source` names (`read_local`), or `_get`."""
    if url.startswith("file://"):
        return read_local(Path(urllib.request.url2pathname(urlsplit(url).path)), _folder(source))
    return _get(url)


def _get(url: str) -> bytes:
    """An http(s) answer of at most `MAX_RECORDING_BYTES`."""
    with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:  # http(s) only
        data = bytes(response.read(MAX_RECORDING_BYTES + 1))
    if len(data) > MAX_RECORDING_BYTES:
        raise InputError(f"more than {size_text(MAX_RECORDING_BYTES)}, the limit", where=url)
    return data


def _folder(source: str | None) -> Path | None:
    """The folder a source names (by path or `file://` address); None for a network source."""
    if source is None or source.startswith(("http://", "https://")):
        return None
    if source.startswith("file://"):
        return Path(urllib.request.url2pathname(urlsplit(source).path))
    return Path(source)


def read_local(path: Path, folder: Path | None) -> bytes:
    """A recording from a folder: a regular file inside `folder` (its symlinks resolved), of at most
    `MAX_RECORDING_BYTES`; anything else an `InputError` naming it."""
    if folder is not None and not inside(path, folder):
        raise InputError(f"outside the folder {folder} (a symlink out of it)", where=str(path))
    return read_regular(path, limit=MAX_RECORDING_BYTES)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _not_the_manifests(url: str, what: str, digest: str, expected: str) -> str:
    return f"{url}: {what}sha256 {digest[:12]}… is not the manifest's {expected[:12]}…"


def _corpus_form(rec: Recording, url: str, data: bytes) -> tuple[bytes | None, str]:
    """The corpus form of a file fetched from its repository, or None and why not."""
    if rec.source_sha256 and _sha(data) != rec.source_sha256:
        return None, _not_the_manifests(url, "source ", _sha(data), rec.source_sha256)
    if not rec.converted:
        return data, ""
    try:
        return to_corpus_form(data, rec.original_format, rec.test_request), ""
    except InputError as exc:
        return None, f"{url}: {exc}"


def fetch_one(rec: Recording, cache: Path, source: str | None, raw: str = RAW_BASE) -> Fetched:
    target = cache / rec.path
    if target.is_file() and sha256_regular(target) == rec.sha256:
        return Fetched(rec.path, "cached")
    url = address(rec, source, raw)
    if not url.startswith(("https://", "http://", "file://")):
        return Fetched(rec.path, "failed", f"{url}: not an http(s) or file address")
    try:
        data = _read(url, source)
    except InputError as exc:  # not a regular file, outside the folder, over the size limit
        return Fetched(rec.path, "failed", printable(str(exc)))
    except urllib.error.HTTPError as exc:
        return Fetched(rec.path, "failed", f"{url}: HTTP {exc.code} {exc.reason}")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return Fetched(rec.path, "failed", f"{url}: {getattr(exc, 'reason', exc)}", unreachable=True)
    converted = source is None and rec.converted
    if source is None:
        form, why = _corpus_form(rec, url, data)
        if form is None:
            return Fetched(rec.path, "failed", why)
        data = form
    if _sha(data) != rec.sha256:
        what = "converted " if converted else ""
        return Fetched(rec.path, "failed", _not_the_manifests(url, what, _sha(data), rec.sha256))
    atomic_write(target, data)
    return Fetched(rec.path, "fetched", converted=converted)


def catalog_of(manifest: Manifest) -> list[dict[str, object]]:
    """The corpus catalog entries of the manifest's recordings (what the corpus readers need)."""
    return [
        {
            "path": r.path,
            "source_repo": r.source_repo,
            "source_path": r.source_path,
            "commit": r.commit,
            "license": r.license,
            "original_format": r.original_format,
            **({"test_request": r.test_request} if r.test_request else {}),
            "provider": r.corpus_provider,
            "api": r.api,
            "n_interactions": r.facts.interactions,
        }
        for r in manifest.recordings
    ]


def fetch(manifest: Manifest, cache: Path, source: str | None = None, raw: str = RAW_BASE) -> list[Fetched]:
    """Fetch every recording of `manifest` into `cache` and write its catalog; one result each."""
    results: list[Fetched] = []
    for rec in manifest.recordings:
        if len(results) >= GIVE_UP_AFTER and all(r.unreachable for r in results):
            results.append(Fetched(rec.path, "failed", "not tried: the source is unreachable", unreachable=True))
            continue
        results.append(fetch_one(rec, cache, source, raw))
    have = {r.path for r in results if r.state != "failed"}
    kept = manifest.model_copy(update={"recordings": [r for r in manifest.recordings if r.path in have]})
    atomic_write(cache / "catalog.json", json.dumps(catalog_of(kept), indent=1) + "\n")
    return results
