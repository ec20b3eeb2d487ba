"""The store rows for identical edits and planted corruption: each turns red under a store with one
realistic bug, and only its own row among every store row, while the reference stays green."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.harness import HarnessContext, run_all
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import store_mutants as m

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def store_rows() -> list[Scenario]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.check == "store"]


def _verdicts(runtime: Any, rows: list[Scenario]) -> dict[str, str]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(runtime.name))
    return {r.scenario: r.verdict for r in run_all(rows, ["openai"], ctx)}


MUTANTS: dict[str, tuple[m.StoreMutant, str]] = {
    "identical-edit-written": (m.StoreMutant(store_class=m.IdenticalEditWritten), "store_edit_identical"),
    "path-across-conversations": (m.StoreMutant(store_class=m.PathAcrossConversations), "store_broken_path"),
    "resolves-dangling-bookmarks": (m.StoreMutant(store_class=m.ResolvesDanglingBookmarks), "store_dangling_bookmark"),
    "registry-as-set": (m.StoreMutant(session_class=m.RegistryAsSet), "store_fsck_duplicate_root"),
    "temps-only-in-conversations": (
        m.StoreMutant(session_class=m.TempsOnlyInConversations),
        "store_fsck_leftover_temp",
    ),
}


def test_the_reference_passes_every_store_row(store_rows: list[Scenario]) -> None:
    verdicts = _verdicts(ReferenceRuntime(), store_rows)
    assert {row for _, row in MUTANTS.values()} <= set(verdicts)
    assert set(verdicts.values()) == {"pass"}, verdicts


@pytest.mark.parametrize("name", list(MUTANTS))
def test_each_store_mutant_turns_exactly_its_row_red(name: str, store_rows: list[Scenario]) -> None:
    runtime, row = MUTANTS[name]
    verdicts = _verdicts(runtime, store_rows)
    assert {s for s, v in verdicts.items() if v != "pass"} == {row}, verdicts
    assert verdicts[row] == "fail"


def test_a_store_without_the_documented_files_layout_is_skipped_on_corruption_rows(store_rows: list[Scenario]) -> None:
    class SqliteOnly(ReferenceRuntime):
        name = "sqlite-only"
        store_backends = ("sqlite",)

    verdicts = _verdicts(SqliteOnly(), store_rows)
    corruption = {s.id for s in store_rows if s.spec.input.get("layout") == "files"}
    assert corruption == {
        "store_fsck_duplicate_root",
        "store_fsck_leftover_temp",
        "store_broken_path",
        "store_dangling_bookmark",
    }
    assert {verdicts[s] for s in corruption} == {"skipped"}
    assert {v for s, v in verdicts.items() if s not in corruption} == {"pass"}
