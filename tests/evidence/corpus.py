"""The shared corpus of real recordings, read once and compared with the official SDKs.

The corpus ships with the project (`corpus/`, the package's `data/corpus`); `$CONFORMANCE_CORPUS`
names another copy (tests that use it skip when that copy is absent). Each
catalog entry names a provider and an API. An API with a dialect here is decoded with the
matching profile (a corpus provider without its own profile gets the generic one of the
dialect); every other API is listed as skipped with its reason. Inside a cassette, only the
generation calls of the dialect are decoded (`conformance.codecs.endpoints`): a downloaded PDF,
an upload, a token exchange or a telemetry post is listed as skipped, as `conformance decode`
does.

Each decoded interaction is one fact: it agrees with the SDK, differs for a reason explained here
(a known fault of the SDK, undone before comparing), or disagrees.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from conformance.evidence import derive as derive_module
from conformance.evidence.corpus import (
    API_DIALECTS,
    DIALECT_PROFILES,
    GENERIC_PROFILE,
    Interaction,
    Skipped,
    profile_for,
    read_catalog,
    read_entry,
    read_recording,
)
from conformance.evidence.derive import derive
from conformance.evidence.expected import bundled_corpus
from conformance.evidence.fetch import cache_dir
from conformance.evidence.manifest import Manifest
from conformance.exceptions import InputError
from conformance.fileio import memoized
from conformance.model import Outcome

__all__ = ["API_DIALECTS", "DIALECT_PROFILES", "GENERIC_PROFILE", "Interaction", "Skipped", "profile_for"]


def _corpus_dir() -> Path:
    if env := os.environ.get("CONFORMANCE_CORPUS"):
        return Path(env)
    return bundled_corpus()


CORPUS = _corpus_dir()
PRESENT = (CORPUS / "catalog.json").is_file()
ABSENT = f"no corpus at {CORPUS}: `conformance evidence fetch` brings the recordings into {cache_dir()}"
"""The one line a test skips with when the corpus is absent: how to get it."""


def catalog() -> list[dict[str, Any]]:
    """The corpus's catalog entries, read and checked once per version of `catalog.json` (the
    entries are shared: read them, never change them)."""
    return list(memoized("corpus-catalog", CORPUS / "catalog.json", lambda _: read_catalog(CORPUS)))


@dataclasses.dataclass(frozen=True)
class KeptInteraction(Interaction):
    """An `Interaction` of `read_entry_once`: its whole decode (`decode()` without `chunks`) is done
    once, on first use, and the outcome shared (read it, never change it); a decode of `chunks` is
    done each time. The call's fields never change, nor does the decoder within a process."""

    @functools.cached_property
    def _whole(self) -> Outcome:
        return super().decode()

    def decode(self, chunks: list[bytes] | None = None) -> Outcome:
        return self._whole if chunks is None else super().decode(chunks)


_READ: dict[tuple[str, str, str, int, bytes], tuple[tuple[Interaction, ...], tuple[Skipped, ...]]] = {}


def read_entry_once(
    corpus: Path, entry: dict[str, Any], *, data: bytes | None = None
) -> tuple[list[Interaction], list[Skipped]]:
    """`conformance.evidence.corpus.read_entry`, parsed once per recording's content in a process.

    Its result depends on the entry's API, provider and path and on the file's bytes (the corpus
    folder only names the file in an error), so it is kept under those, the bytes by their length
    and SHA-256: a copy of the corpus elsewhere (`conformance evidence fetch`'s cache) reads as the
    same, a changed file is parsed again. An input error is raised each time, never kept. The
    calls are shared (`KeptInteraction`: frozen, each decoded whole once); the lists are the
    caller's own."""
    if API_DIALECTS.get(entry["api"]) is None:
        return read_entry(corpus, entry, data=data)  # reads no file
    raw = data if data is not None else read_recording(corpus, entry)
    key = (entry["api"], entry["provider"], entry["path"], len(raw), hashlib.sha256(raw).digest())
    if key not in _READ:
        calls, others = read_entry(corpus, entry, data=raw)
        kept = (KeptInteraction(**{f.name: getattr(it, f.name) for f in dataclasses.fields(it)}) for it in calls)
        _READ[key] = (tuple(kept), tuple(others))
    calls_kept, others_kept = _READ[key]
    return list(calls_kept), list(others_kept)


@contextlib.contextmanager
def parsed_once() -> Iterator[None]:
    """Within, `conformance.evidence.derive` reads each recording through `read_entry_once`: the
    manifest drawn again shares the parse of the recordings the comparisons read."""
    with mock.patch.object(derive_module, "read_entry", read_entry_once):
        yield


@functools.cache
def load(dialect: str) -> tuple[tuple[Interaction, ...], tuple[Skipped, ...]]:
    """Every generation call of `dialect` in the corpus, and what was skipped inside its files."""
    found: list[Interaction] = []
    skipped: list[Skipped] = []
    for entry in sorted(catalog(), key=lambda e: e["path"]):
        if API_DIALECTS.get(entry["api"]) != dialect:
            continue
        calls, others = read_entry_once(CORPUS, entry)
        found += calls
        skipped += others
    return tuple(found), tuple(skipped)


def unrecognised() -> list[Skipped]:
    """Catalog entries whose API has no dialect here, with the reason."""
    return [
        Skipped(e["path"], f"the {e['api']} API of {e['provider']} has no dialect")
        for e in catalog()
        if e["api"] not in API_DIALECTS
    ]


@dataclasses.dataclass
class Tally:
    agree: int = 0
    explained: list[str] = dataclasses.field(default_factory=list)
    disagree: list[str] = dataclasses.field(default_factory=list)
    typed_errors: list[str] = dataclasses.field(default_factory=list)

    @property
    def facts(self) -> int:
        return self.agree + len(self.explained) + len(self.disagree) + len(self.typed_errors)

    def line(self, dialect: str) -> str:
        return (
            f"corpus {dialect}: {self.facts} facts, agree {self.agree}, explained {len(self.explained)}, "
            f"disagree {len(self.disagree)}, input-errors {len(self.typed_errors)}"
        )


Comparator = Callable[[Interaction, Outcome], "str | None"]
"""None when we and the SDK agree; `"explained: …"` for a known SDK difference; else the difference."""


@functools.cache
def readings(dialect: str, compare: Comparator) -> tuple[tuple[Interaction, str | None, InputError | None], ...]:
    """Each call of `dialect` with what `compare` says of our decoding and the SDK's, or the input
    error our decoding raised; read once per process (the per-dialect, overall and manifest tests
    read the same)."""
    out: list[tuple[Interaction, str | None, InputError | None]] = []
    for it in load(dialect)[0]:
        try:
            outcome = it.decode()
        except InputError as exc:
            out.append((it, None, exc))
            continue
        out.append((it, compare(it, outcome), None))
    return tuple(out)


def run(dialect: str, compare: Comparator) -> Tally:
    tally = Tally()
    for it, why, error in readings(dialect, compare):
        if error is not None:
            tally.typed_errors.append(f"{it.where}: {error}")
        elif why is None:
            tally.agree += 1
        elif why.startswith("explained: "):
            tally.explained.append(f"{it.where}: {why.removeprefix('explained: ')}")
        else:
            tally.disagree.append(f"{it.where}: {why}")
    return tally


def streams(dialect: str) -> Iterator[Interaction]:
    return (it for it in load(dialect)[0] if it.streams)


def sdk_facts(comparators: dict[str, Comparator]) -> dict[str, tuple[int, int, int]]:
    """Per recording: calls that agree with the SDK, are explained, disagree (input errors count
    as disagreeing)."""
    out: dict[str, list[int]] = {}
    for dialect, compare in comparators.items():
        for it, why, error in readings(dialect, compare):
            counts = out.setdefault(it.path, [0, 0, 0])
            if error is not None:
                why = "input error"
            counts[0 if why is None else 1 if why.startswith("explained: ") else 2] += 1
    return {path: (a, e, d) for path, (a, e, d) in out.items()}


def rederive(committed: Manifest, comparators: dict[str, Comparator]) -> Manifest:
    """The manifest drawn again from the corpus, SDK facts included."""
    with parsed_once():
        derived = derive(CORPUS, committed)
    facts = sdk_facts(comparators)
    for rec in derived.recordings:
        agree, explained, disagree = facts.get(rec.path, (0, 0, 0))
        rec.facts = rec.facts.model_copy(
            update={"sdk_agree": agree, "sdk_explained": explained, "sdk_disagree": disagree}
        )
    return derived
