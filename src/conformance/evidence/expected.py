"""The expected normalized forms of the corpus's generation calls, as reviewed data.

One file per recording, `corpus/expected/<recording path>.json` (indented JSON, so a change reads
as a diff): the SHA-256 of the recording the forms were written from and, per generation call,
its index in the recording, the normalized outcome (normalized-form.md) and how the dialect's
official SDK reads the same bytes (`sdk`):

- `agree`: the SDK's reading equals this form;
- `explained: <reason>`: it differs by a known fault of the SDK, named by the comparator;
- `disagree: <difference>`: it differs and nothing explains it yet: the call is not judged;
- `unread: <reason>`: no SDK reader for the dialect: the call is not judged (counted `unverified`).

`scripts/evidence_expected.py` writes them (the SDKs are test dependencies) and
`tests/evidence/test_expected.py` holds each stored form to the SDK's reading again.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from conformance.data import bundled_root
from conformance.exceptions import InputError, one_line
from conformance.fileio import read_regular

EXPECTED_DIR = "expected"
WRITE_COMMAND = "python scripts/evidence_expected.py"
"""The command that writes (or rewrites) the expected forms from the corpus."""

JUDGED_PREFIXES = ("agree", "explained: ")


class ExpectedCall(BaseModel):
    """One generation call's expected outcome and how the official SDK reads it."""

    model_config = ConfigDict(extra="forbid")

    index: int
    """The interaction's index in the recording."""
    sdk: str
    """`agree`, `explained: …`, `disagree: …` or `unread: …` (see the module)."""
    outcome: dict[str, Any]

    @property
    def judged(self) -> bool:
        """Whether the form is reviewed (the SDK agrees, or differs by a named fault of its own)."""
        return self.sdk.startswith(JUDGED_PREFIXES)


class ExpectedFile(BaseModel):
    """The expected forms of one recording's generation calls."""

    model_config = ConfigDict(extra="forbid")

    recording: str
    sha256: str
    """SHA-256 of the recording the forms were drawn from: another recording is not judged by them."""
    calls: list[ExpectedCall] = Field(default_factory=list)


def bundled_corpus() -> Path:
    """The corpus shipped with the package (in a checkout, a link to the repository's `corpus/`)."""
    return bundled_root() / "corpus"


def expected_path(corpus: Path, recording: str) -> Path:
    """Where the expected forms of `recording` (a corpus path) are kept."""
    return corpus / EXPECTED_DIR / Path(recording).with_suffix(".json")


def read_expected(corpus: Path, recording: str) -> ExpectedFile | None:
    """The stored forms of `recording`; None when none are written; `InputError` naming the file
    when it is not an expected-forms file."""
    path = expected_path(corpus, recording)
    try:
        data = read_regular(path)
    except FileNotFoundError:
        return None
    try:
        return ExpectedFile.model_validate_json(data)
    except ValueError as exc:
        raise InputError(f"not an expected-forms file: {one_line(exc)}", where=str(path)) from None


@functools.cache
def cached_expected(corpus: Path, recording: str) -> ExpectedFile | None:
    """`read_expected`, read once per process."""
    return read_expected(corpus, recording)


def render(forms: ExpectedFile) -> str:
    """The file's text: indented JSON, one key a line, newline-terminated."""
    return forms.model_dump_json(indent=1) + "\n"
