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


def _store(cls: type) -> m.StoreMutant:
    return m.StoreMutant(store_class=cls)


MUTANTS: dict[str, tuple[m.StoreMutant, set[str]]] = {
    "identical-edit-written": (_store(m.IdenticalEditWritten), {"store_edit_identical"}),
    "path-across-conversations": (_store(m.PathAcrossConversations), {"store_broken_path"}),
    "resolves-dangling-bookmarks": (_store(m.ResolvesDanglingBookmarks), {"store_dangling_bookmark"}),
    "registry-as-set": (m.StoreMutant(session_class=m.RegistryAsSet), {"store_fsck_duplicate_root"}),
    "temps-only-in-conversations": (
        m.StoreMutant(session_class=m.TempsOnlyInConversations),
        {"store_fsck_leftover_temp"},
    ),
    # seed 002: each corrupt layout, through the store capability
    "root-parent-ignored": (_store(m.RootParentIgnored), {"store_corrupt_root_parent"}),
    "cycle-read-as-path": (_store(m.CycleReadAsPath), {"store_corrupt_cycle"}),
    "path-from-the-gap": (_store(m.PathFromTheGap), {"store_corrupt_missing_parent"}),
    "unreadable-node-skipped": (_store(m.UnreadableNodeSkipped), {"store_corrupt_node_json"}),
    "unreadable-registry-is-empty": (_store(m.UnreadableRegistryIsEmpty), {"store_corrupt_registry"}),
    "roots-listed-twice": (_store(m.RootsListedTwice), {"store_fsck_duplicate_root"}),
    "generation-as-node": (_store(m.GenerationAsNode), {"store_corrupt_generation"}),
    "unregistered-as-missing": (_store(m.UnregisteredAsMissing), {"store_unregistered_conversation"}),
    "reads-either-copy": (_store(m.ReadsEitherCopy), {"store_duplicate_node"}),
    "repair-keeps-first-copy": (m.StoreMutant(session_class=m.RepairKeepsFirstCopy), {"store_duplicate_node"}),
    # an edit of a node whose chain loops, is parented at the root or has a gap goes through
    "writes-into-corruption": (
        _store(m.WritesIntoCorruption),
        {"store_corrupt_root_parent", "store_corrupt_cycle", "store_corrupt_missing_parent"},
    ),
}


def test_the_reference_passes_every_store_row(store_rows: list[Scenario]) -> None:
    verdicts = _verdicts(ReferenceRuntime(), store_rows)
    assert set().union(*(rows for _, rows in MUTANTS.values())) <= set(verdicts)
    assert set(verdicts.values()) == {"pass"}, verdicts


@pytest.mark.parametrize("name", list(MUTANTS))
def test_each_store_mutant_turns_exactly_its_rows_red(name: str, store_rows: list[Scenario]) -> None:
    runtime, rows = MUTANTS[name]
    verdicts = _verdicts(runtime, store_rows)
    assert {s for s, v in verdicts.items() if v != "pass"} == rows, verdicts
    assert {verdicts[row] for row in rows} == {"fail"}


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
        "store_corrupt_root_parent",
        "store_corrupt_cycle",
        "store_corrupt_missing_parent",
        "store_corrupt_registry",
        "store_corrupt_node_json",
        "store_corrupt_generation",
        "store_unregistered_conversation",
        "store_duplicate_node",
    }
    assert {verdicts[s] for s in corruption} == {"skipped"}
    assert {v for s, v in verdicts.items() if s not in corruption} == {"pass"}
