"""The store rows for identical edits and planted corruption: each turns red under a store with one
realistic bug, and only its own row among every store row, while the reference stays green.

A mutant store or session that only replaces methods of the store's classes (`STORE_CLASSES`, or the
backend's, from its constructor) runs on the rows whose reference run reached one of them; every other
row runs the reference's code alone and keeps its verdict (`tests/harness/reaching.py`)."""

from __future__ import annotations

import functools
import inspect
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conformance.harness import HarnessContext, run_all
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from conformance.store import BACKENDS, FileBackend, SqliteBackend, Store
from conformance.store.session import StoreSession
from tests.harness import store_mutants as m
from tests.harness.reaching import UNCHANGED, Touched

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def store_rows() -> list[Scenario]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.check == "store"]


def _verdicts(
    runtime: Any, rows: list[Scenario], only: set[str] | None = None, touched: Touched | None = None
) -> dict[str, str]:
    """Each row's verdict on one column (of `only`'s rows when given, each credited in `touched`)."""
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(runtime.name))
    chosen = [s for s in rows if only is None or s.id in only]
    on_start = None if touched is None else touched.started
    return {r.scenario: r.verdict for r in run_all(chosen, ["openai"], ctx, on_start=on_start)}


def _store(cls: type) -> m.StoreMutant:
    return m.StoreMutant(store_class=cls)


STORE_CLASSES: tuple[type, ...] = (Store, StoreSession, FileBackend, SqliteBackend)
"""The classes of the reference's store session, whose methods the reference run records."""


@contextmanager
def _recording_store(touched: Touched) -> Iterator[None]:
    """Every method of `STORE_CLASSES` recording, in `touched`, the row calling it (`Store.edit`)."""
    saved: list[tuple[type, str, Callable[..., Any]]] = []

    def recorder(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            touched.record(name)
            return method(*args, **kwargs)

        return call

    for cls in STORE_CLASSES:
        for name, value in list(vars(cls).items()):
            if inspect.isfunction(value) and not name.startswith("__"):
                saved.append((cls, name, value))
                setattr(cls, name, recorder(f"{cls.__name__}.{name}", value))
    try:
        yield
    finally:
        for cls, name, value in saved:
            setattr(cls, name, value)


def _backend_methods_replaced(store_class: type[Store]) -> set[str] | None:
    """The backend methods `store_class`'s constructor replaces on the backend it is handed, on each
    backend (`FileBackend._scan_once`); None when it changes anything else of the backend or the store."""
    names: set[str] = set()
    for backend in BACKENDS:
        with tempfile.TemporaryDirectory(prefix="conformance-store-") as tmp:
            session = StoreSession(backend, tmp)
            given = session.store
            before = dict(vars(given.backend))
            built = store_class(given.backend, id_factory=given.ids, clock=given.clock, max_depth=given.max_depth)
            plain = Store(given.backend, id_factory=given.ids, clock=given.clock, max_depth=given.max_depth)
            after = dict(vars(given.backend))
            session.close()
        if vars(built).keys() != vars(plain).keys() or any(v is not vars(plain)[k] for k, v in vars(built).items()):
            return None
        kind = type(given.backend)
        for key, value in after.items():
            if key in before and before[key] is value:
                continue
            if key in before or not callable(value) or not inspect.isfunction(getattr(kind, key, None)):
                return None
            names.add(f"{kind.__name__}.{key}")
    return names


def _replaced(runtime: m.StoreMutant) -> set[str] | None:
    """The methods of `STORE_CLASSES` the mutant's store and session classes replace (`Store._ancestry`);
    None when they change anything else (a class constant, state)."""
    names: set[str] = set()
    for cls, base in ((runtime.store_class, Store), (runtime.session_class, StoreSession)):
        for c in cls.__mro__[: cls.__mro__.index(base)]:
            for name, value in vars(c).items():
                if name in UNCHANGED:
                    continue
                if name == "__init__" and cls is runtime.store_class and (patched := _backend_methods_replaced(cls)):
                    names |= patched
                elif inspect.isfunction(value) and not name.startswith("__"):
                    names.add(f"{base.__name__}.{name}")
                else:
                    return None
    return names


def _threaded(row: Scenario) -> bool:
    """A row whose script runs writers side by side: which methods it reaches depends on their timing."""
    return any(step.get("op") == "concurrently" for step in row.spec.input.get("script", []))


REACHED: dict[str, set[str]] = {}
"""Per store row, the methods of `STORE_CLASSES` its reference run reached (filled by `reference`)."""


@pytest.fixture(scope="module")
def reference(store_rows: list[Scenario]) -> dict[str, str]:
    touched = Touched()
    with _recording_store(touched):
        verdicts = _verdicts(ReferenceRuntime(), store_rows, touched=touched)
    REACHED.update({row[0]: names for row, names in touched.by_row.items()})
    return verdicts


def _reaching(runtime: m.StoreMutant, rows: list[Scenario]) -> set[str] | None:
    """The rows whose reference run reached a method the mutant replaces, and the threaded rows; None: all."""
    replaced = _replaced(runtime)
    if replaced is None:
        return None
    return {s.id for s in rows if _threaded(s) or REACHED.get(s.id, set()) & replaced}


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


def test_the_reference_passes_every_store_row(store_rows: list[Scenario], reference: dict[str, str]) -> None:
    verdicts = reference
    assert set().union(*(rows for _, rows in MUTANTS.values())) <= set(verdicts)
    assert set(verdicts.values()) == {"pass"}, verdicts
    # each row reached a method of the store's classes, as the mutants' runs rely on (`_reaching`)
    assert {s for s in verdicts if not REACHED.get(s)} == set()


@pytest.mark.parametrize("name", list(MUTANTS))
def test_each_store_mutant_turns_exactly_its_rows_red(
    name: str, store_rows: list[Scenario], reference: dict[str, str]
) -> None:
    runtime, rows = MUTANTS[name]
    verdicts = {**reference, **_verdicts(runtime, store_rows, _reaching(runtime, store_rows))}
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
