"""docs/runtimes.md's count table is what fresh runs of the example adapters give (scripts/runtime_counts.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.examples import library_warnings as warn
from tests.lazy import require

require("openai", "anthropic", "pydantic_ai")

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [warn.INSTANCE_ATTRIBUTE, warn.DEPRECATED_MODEL, warn.SERIALIZER, warn.SAMPLING, warn.TYPEDDICT]


def _script() -> ModuleType:
    # one module, so one run per adapter in a session (test_runtime_library_keeps.py reuses it)
    if "runtime_counts" in sys.modules:
        return sys.modules["runtime_counts"]
    spec = importlib.util.spec_from_file_location("runtime_counts", ROOT / "scripts" / "runtime_counts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("runtime_counts", module)
    spec.loader.exec_module(module)
    return module


COUNTS = _script()


@pytest.mark.parametrize(
    ("label", "group"), [(label, group) for label, run in COUNTS.RUNS.items() for group in run.groups]
)
def test_the_documented_counts_are_reproduced(label: str, group: str) -> None:
    (fresh,) = COUNTS.render(COUNTS.count(label, (group,))).splitlines()[2:]
    assert fresh == COUNTS.documented_row(label, group), (
        f"docs/runtimes.md's counts for {label} drifted; `python scripts/runtime_counts.py --write` rewrites "
        "the table — then read the changed cells and update the classification below it"
    )


@pytest.mark.parametrize("label", [label for label in COUNTS.RUNS if label != "reference"])
def test_every_red_row_is_read_and_classed_by_its_evidence(label: str) -> None:
    """The rows, their providers and their class, wire and rule source are what fresh runs give (the
    class follows from the evidence, never from the table); each is read, and each defect names what
    a search of the library's issue tracker found."""
    fresh = {
        key: (", ".join(ev.providers), ev.cls, ev.wire, ev.rule) for key, ev in COUNTS.evidence_rows(label).items()
    }
    known = COUNTS.documented_classes()
    documented = {key: (d.providers, d.cls, d.wire, d.rule) for key, d in known.items() if key[0] == label}
    assert fresh == documented, (
        f"docs/runtimes.md's red rows of {label} drifted; `python scripts/runtime_counts.py --write` recomputes "
        "them and keeps what was written by hand for each row (new rows as `unread`) — then read them"
    )
    mine = {key: d for key, d in known.items() if key[0] == label}
    unread = [key for key, d in mine.items() if d.reading == COUNTS.UNREAD]
    assert not unread, f"red rows not yet read in docs/runtimes.md: {unread}"
    untracked = [key for key, d in mine.items() if "defect" in d.cls and d.tracker in ("", "—")]
    assert not untracked, f"defects without an issue-tracker search in docs/runtimes.md: {untracked}"
