"""Which rows a mutant runtime can change: those whose reference run reached a method it replaces.

A mutant that is the reference runtime with some of its methods replaced, and nothing else (no state,
no constant, no `__init__`), runs the reference's own code on a row that never calls one of them: its
verdict there is the reference's. So the mutant tests run the reference once with every method
recording the row calling it (`recording`), and each such mutant only on the rows that reached one
of its methods (`reaching`); every other row keeps the reference's result (`merged`). A mutant that
changes anything else runs on every row.

Each test keeps a guard (`unreached_passes` empty): a scenario the reference passed with no call
credited on any column would be a sign of calls going uncredited, and of rows never run under a mutant.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Collection, Iterable, Mapping
from typing import Any, TypeVar

from conformance.compare import ScenarioResult
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario

Row = tuple[str, str]
"""(scenario, provider)."""

R = TypeVar("R", bound=ReferenceRuntime)

SESSION_CHECKS = frozenset({"store"})
"""Checks whose work is done once per run, on the scenario's first column (the store session): the
methods reached there stand for every column of the scenario."""


class Touched:
    """Which of the runtime's methods each row reached, from the harness or from the runtime itself.
    A call is credited to the row running at the time (`now`, set by `run_all`'s `on_start`); a
    row's set can only be too large where calls of other threads are credited to it too."""

    def __init__(self) -> None:
        self.now: Row | None = None
        self.by_row: dict[Row, set[str]] = {}

    def record(self, name: str) -> None:
        if self.now is not None:
            self.by_row.setdefault(self.now, set()).add(name)

    def started(self, scenario: Scenario, provider: str) -> None:
        """`run_all`'s `on_start`: the calls from now on are this row's."""
        self.now = (scenario.id, provider)

    def reached(self, rows: Iterable[Row], scenarios: Iterable[Scenario]) -> dict[Row, set[str]]:
        """Per row of `rows`, the methods reached; each row of a `SESSION_CHECKS` scenario has those
        reached on any of its columns."""
        session = {s.id for s in scenarios if s.check in SESSION_CHECKS}
        shared: dict[str, set[str]] = {}
        for row, names in self.by_row.items():
            if row[0] in session:
                shared.setdefault(row[0], set()).update(names)
        return {row: self.by_row.get(row, set()) | shared.get(row[0], set()) for row in rows}


def recording(runtime: R) -> tuple[R, Touched]:
    """`runtime` with every method of its class recording, in the `Touched` returned, the row calling it."""
    touched = Touched()
    for name, _ in inspect.getmembers(type(runtime), inspect.isfunction):
        if name.startswith("__"):
            continue
        bound = getattr(runtime, name)

        def call(*args: Any, _name: str = name, _bound: Any = bound, **kwargs: Any) -> Any:
            touched.record(_name)
            return _bound(*args, **kwargs)

        setattr(runtime, name, functools.wraps(bound)(call))
    return runtime, touched


UNCHANGED = frozenset({"name", "__doc__", "__module__", "__qualname__", "__dict__", "__weakref__"})
"""What a mutant class may set without changing the reference's behaviour beyond its methods."""


def replaced_methods(mutant: type) -> set[str] | None:
    """The reference's methods `mutant` replaces; None if it changes anything else (state, a constant,
    a property, `__init__`), or is no subclass of the reference."""
    names: set[str] = set()
    for cls in mutant.__mro__:
        if cls is ReferenceRuntime:
            return names
        for name, value in vars(cls).items():
            if name in UNCHANGED:
                continue
            if not inspect.isfunction(value) or name.startswith("__"):
                return None
            names.add(name)
    return None


def reaching(
    mutant: type, reached: Mapping[Row, set[str]], rows: Iterable[Row], always: Collection[str] = ()
) -> set[Row] | None:
    """The `rows` whose reference run reached a method `mutant` replaces, and every row of a scenario
    in `always`; None: the mutant changes more than methods, every row runs."""
    replaced = replaced_methods(mutant)
    if replaced is None:
        return None
    return {row for row in rows if row[0] in always or reached.get(row, set()) & replaced}


def merged(reference: Mapping[Row, ScenarioResult], got: Mapping[Row, ScenarioResult]) -> dict[Row, ScenarioResult]:
    """The mutant's results: those it ran, and the reference's for the rows it did not need to run."""
    return {row: got.get(row, res) for row, res in reference.items()}


def unreached_passes(reference: Mapping[Row, ScenarioResult], reached: Mapping[Row, set[str]]) -> set[str]:
    """Scenarios the reference passed on some column without a method call credited on any column
    (empty when the recording saw every row it relies on)."""
    passed = {row[0] for row, res in reference.items() if res.verdict == "pass"}
    return passed - {row[0] for row, names in reached.items() if names}
