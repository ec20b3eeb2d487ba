"""The `store` check: the bundled store scenarios are green for both reference backends, and a
mutant store turns its row red."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.harness import HarnessContext, build_matrix, run_all
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios
from conformance.store import Store
from conformance.store.errors import CycleError
from conformance.store.session import StoreSession

ROOT = Path(__file__).resolve().parents[2]
PROVIDERS = ["openai", "anthropic"]


def matrix_for(runtime: Any, name: str) -> dict[str, set[str]]:
    """feature → the set of cell verdicts across the provider columns."""
    scenarios = load_scenarios(ROOT / "scenarios", only=None)
    scenarios = [s for s in scenarios if s.check == "store"]
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=name)
    results = run_all(scenarios, PROVIDERS, ctx)
    matrix = build_matrix(results, PROVIDERS, ctx, scenario_dir=ROOT / "scenarios")
    out: dict[str, set[str]] = {}
    for cell in matrix.cells:
        out.setdefault(cell.feature, set()).add(cell.verdict)
    return out


@pytest.fixture(scope="module")
def reference() -> dict[str, set[str]]:
    return matrix_for(ReferenceRuntime(), "reference")


def test_every_store_row_is_green_for_both_backends(reference: dict[str, set[str]]) -> None:
    assert set(reference) == {
        "store_append_path",
        "store_edit",
        "store_split",
        "store_delete",
        "store_reparent",
        "store_bookmarks",
        "store_errors",
        "store_coalesce",
        "store_corruption",
        "store_concurrent_writes",
    }
    assert all(verdicts == {"pass"} for verdicts in reference.values()), reference


def test_the_reason_names_both_backends() -> None:
    (scenario,) = load_scenarios(ROOT / "scenarios", only=["store_reparent"])
    from conformance.harness import run_check

    res = run_check(scenario, "openai", HarnessContext(root=ROOT, runtime=ReferenceRuntime()))
    assert res.verdict == "pass" and res.reason.startswith("files, sqlite:")


class CycleStore(Store):
    """A mutant whose reparent skips the cycle check (it moves a node below its own descendant)."""

    def reparent(self, node_id: Any, new_parent: Any) -> None:
        try:
            super().reparent(node_id, new_parent)
        except CycleError:
            node = self.get(node_id)
            with self.backend.transaction(node.root) as tx:
                node.parent = self.get(new_parent).id
                tx.put[node.id] = node


class LeakyDeleteStore(Store):
    """A mutant whose delete leaves bookmarks pointing at deleted nodes."""

    def delete(self, node_id: Any) -> dict[str, Any]:
        node = self.get(node_id)
        marks = self.backend.bookmarks(node.root)
        out = super().delete(node_id)
        with self.backend.transaction(node.root) as tx:
            tx.bookmarks[node.root] = marks
        return out


class MutantRuntime(ReferenceRuntime):
    name = "mutant"

    def __init__(self, store_class: type[Store]) -> None:
        self.store_class = store_class

    def store_session(self, backend: str, directory: str, options: dict[str, Any] | None = None) -> Any:
        session = StoreSession(backend, directory, options)
        store = session.store
        session.store = self.store_class(
            store.backend, id_factory=store.ids, clock=store.clock, max_depth=store.max_depth
        )
        return session


@pytest.mark.parametrize(("store_class", "row"), [(CycleStore, "store_reparent"), (LeakyDeleteStore, "store_delete")])
def test_a_mutant_store_turns_its_row_red(store_class: type[Store], row: str, reference: dict[str, set[str]]) -> None:
    mutant = matrix_for(MutantRuntime(store_class), "mutant")
    assert mutant[row] == {"fail"}
    assert all(v == {"pass"} for feature, v in mutant.items() if feature != row)


def test_a_third_party_store_is_judged_through_the_capability() -> None:
    """An in-memory store written from docs/store.md alone, with its own backend list."""
    from examples.memory_store import make

    verdicts = matrix_for(make(), "memory-store")
    # planted corruption needs the documented data directory, which an in-memory store has not
    assert verdicts.pop("store_corruption") == {"skipped"}
    assert all(v == {"pass"} for v in verdicts.values())


def test_a_runtime_without_the_capability_is_skipped() -> None:
    class Bare:
        name = "bare"

        def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
            return {}

        def decode(self, *args: Any) -> dict[str, Any]:
            return {}

        def repair(self, *args: Any) -> dict[str, Any]:
            return {}

    (scenario,) = load_scenarios(ROOT / "scenarios", only=["store_edit"])
    from conformance.harness import run_check

    res = run_check(scenario, "openai", HarnessContext(root=ROOT, runtime=Bare(), runtime_name="bare"))  # type: ignore[arg-type]
    assert (res.verdict, res.reason) == ("skipped", "runtime bare does not implement `store`")
