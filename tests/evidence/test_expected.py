"""The expected forms of the corpus's generation calls (`corpus/expected/`) are reviewed data: each
stored form is read against the official SDK of its dialect reading the same bytes, and the result
must be the `sdk` verdict stored beside it (`agree`, or `explained:` a fault the comparator names).
A call whose form the SDK reads otherwise without a reason is stored as `disagree: …` and is never a
judged row (`harness.real` counts it `unverified`)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from conformance.evidence.derive import sha256
from conformance.evidence.expected import WRITE_COMMAND, ExpectedCall, expected_path, read_expected
from conformance.fileio import read_regular
from conformance.model import Outcome
from tests.evidence import corpus
from tests.evidence.corpus import Interaction
from tests.evidence.test_corpus import COMPARATORS, sdk_status

if not corpus.PRESENT:
    pytest.skip(corpus.ABSENT, allow_module_level=True)


def _by_recording() -> dict[str, list[Interaction]]:
    out: dict[str, list[Interaction]] = defaultdict(list)
    for dialect in COMPARATORS:
        for it in corpus.load(dialect)[0]:
            out[it.path].append(it)
    return out


def _stored(path: str) -> dict[int, ExpectedCall]:
    forms = read_expected(corpus.CORPUS, path)
    return {c.index: c for c in forms.calls} if forms is not None else {}


def test_every_generation_call_has_its_expected_form() -> None:
    """New or changed recordings fail here until their forms are written (and reviewed below)."""
    missing: list[str] = []
    for path, calls in sorted(_by_recording().items()):
        forms = read_expected(corpus.CORPUS, path)
        if forms is None:
            missing.append(f"{path}: no {expected_path(corpus.CORPUS, path).name}")
        elif forms.sha256 != sha256(read_regular(corpus.CORPUS / path)):
            missing.append(f"{path}: its forms were written from another version of the recording")
        elif sorted(c.index for c in forms.calls) != sorted(it.index for it in calls):
            missing.append(
                f"{path}: forms for calls {[c.index for c in forms.calls]}, calls {[it.index for it in calls]}"
            )
    assert not missing, f"run `{WRITE_COMMAND}` to write them:\n" + "\n".join(missing[:20])


@pytest.mark.parametrize("dialect", sorted(COMPARATORS))
def test_each_stored_form_reads_as_the_official_sdk_says(dialect: str) -> None:
    """The stored form (not our decode of today) against the SDK's reading of the same bytes."""
    wrong: list[str] = []
    checked = 0
    for it in corpus.load(dialect)[0]:
        stored = _stored(it.path).get(it.index)
        if stored is None:
            continue  # reported by the test above
        checked += 1
        status = sdk_status(it, Outcome.model_validate(stored.outcome))
        if status != stored.sdk:
            wrong.append(f"{it.where}: stored {stored.sdk!r:.120}, the SDK reading now says {status!r:.200}")
    assert checked > 0
    assert not wrong, f"{len(wrong)} stored forms differ from their review:\n" + "\n".join(wrong[:10])


def test_the_stored_forms_are_the_reference_decode() -> None:
    """What the writer stores is the decode of the recording: a form edited by hand, or a decode
    changed since, shows here (rewrite them, and review the difference the rewrite shows)."""
    differ = []
    for path, calls in sorted(_by_recording().items()):
        stored = _stored(path)
        for it in calls:
            if it.index in stored and stored[it.index].outcome != it.decode().to_json():
                differ.append(it.where)
    assert not differ, f"run `{WRITE_COMMAND}` and review the diff: " + ", ".join(differ[:20])


def test_every_stored_form_is_reviewed() -> None:
    """Today every call of the corpus agrees with its SDK or differs by a named SDK fault; the
    explained ones are listed (run with -s)."""
    unreviewed, explained = [], []
    for path in sorted(_by_recording()):
        for call in _stored(path).values():
            if not call.judged:
                unreviewed.append(f"{path}#{call.index}: {call.sdk}")
            elif call.sdk != "agree":
                explained.append(f"{path}#{call.index}: {call.sdk}")
    print("\n".join(explained))
    assert not unreviewed, "\n".join(unreviewed[:10])
