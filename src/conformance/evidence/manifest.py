"""The manifest of real recordings behind the matrix (`manifest.json`, package data).

Each recording names where it comes from (source repository, commit, path, licence), the SHA-256
of the recording as the corpus holds it (vcrpy YAML, bodies as text, credentials removed), the
format its project recorded it in and the SHA-256 of that source file (`conformance evidence
fetch` downloads it, checks that hash, converts it to the corpus form and checks the other), the
column (a provider profile) that reads it, the matrix features its decoded calls exercise, and
how its decode compares with the official SDK of its dialect.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from conformance.exceptions import InputError, one_line

MANIFEST_SCHEMA = 1


class Facts(BaseModel):
    """What the decoded generation calls of one recording show."""

    model_config = ConfigDict(extra="forbid")

    interactions: int = 0
    """Interactions recorded in the file."""
    calls: int = 0
    """Generation calls decoded (other calls of the recording, e.g. downloads, are not counted)."""
    sdk_agree: int = 0
    """Calls whose decode equals the official SDK's reading of the same bytes."""
    sdk_explained: int = 0
    """Calls that differ from the SDK by a known fault of the SDK (named by the comparator)."""
    sdk_disagree: int = 0
    """Calls that differ from the SDK without an explanation."""


class Recording(BaseModel):
    """One public recording: its source, its hash, the cells it backs and the facts drawn from it."""

    model_config = ConfigDict(extra="forbid")

    path: str
    """Where the corpus holds it: `<provider>/<api>/<source>--<test name>.yaml`."""
    source_repo: str
    source_path: str
    commit: str
    license: str
    sha256: str
    """SHA-256 of the recording as the corpus holds it."""
    original_format: str = "vcrpy"
    """The format of the source file, converted to the corpus form when fetched from its
    repository (`conformance.evidence.convert.FORMATS`)."""
    test_request: dict[str, Any] | None = None
    """For a source file holding a response body alone: the request its test sends and how the
    test serves the body (`conformance.evidence.convert.to_corpus_form`)."""
    source_sha256: str = ""
    """SHA-256 of the file as its repository holds it at `commit` (empty: not known, only the
    converted form is checked)."""
    corpus_provider: str
    api: str
    provider: str
    """The column (provider profile) whose decode reads it."""
    features: list[str] = Field(default_factory=list)
    """Matrix features its decoded calls exercise: with `provider`, the cells it backs."""
    facts: Facts = Field(default_factory=Facts)

    @property
    def converted(self) -> bool:
        """Whether the corpus form differs from the source file (fetched, it is converted)."""
        return self.source_sha256 != self.sha256

    @property
    def source_url(self) -> str:
        """The file in its source repository at the pinned commit."""
        return f"https://github.com/{self.source_repo}/blob/{self.commit}/{self.source_path}"


class Manifest(BaseModel):
    """Every recording of the corpus that a dialect here reads."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = MANIFEST_SCHEMA
    corpus: str = ""
    """How the corpus is described (its README's first line)."""
    recordings: list[Recording] = Field(default_factory=list)

    def backing(self) -> dict[tuple[str, str], list[Recording]]:
        """(provider, feature) → the recordings that back that cell."""
        out: dict[tuple[str, str], list[Recording]] = {}
        for rec in self.recordings:
            for feature in rec.features:
                out.setdefault((rec.provider, feature), []).append(rec)
        return out


def parse_manifest(text: str | bytes, where: str) -> Manifest:
    """A manifest from its JSON; `InputError` naming `where` when it is not one."""
    try:
        return Manifest.model_validate_json(text)
    except ValueError as exc:
        raise InputError(f"not an evidence manifest: {one_line(exc)}", where=where) from None


def bundled_manifest() -> Manifest:
    """The manifest shipped with the package."""
    resource = importlib.resources.files("conformance.evidence") / "manifest.json"
    return parse_manifest(resource.read_bytes(), "conformance/evidence/manifest.json")


def sources(recordings: Iterable[Recording]) -> list[str]:
    """The source repositories of `recordings`, most recordings first."""
    counts: dict[str, int] = {}
    for rec in recordings:
        counts[rec.source_repo] = counts.get(rec.source_repo, 0) + 1
    return sorted(counts, key=lambda repo: (-counts[repo], repo))
