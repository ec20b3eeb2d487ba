"""Runtimes side by side: several `matrix.json` files merged into one provider × feature grid.

Each matrix is one *side*, labelled with the runtime it names (`runtime`); two sides naming the
same runtime are told apart by the shortest tail of their paths that differs. The grid is the
union of every side's providers and features: a side without a cell for a (provider, feature)
shows "not run" there.

A (provider, feature) *spot* is a disagreement when the runtimes that answered it (pass, fail or
error) give it different verdicts, or give one of its scenarios different verdicts (so `fail 1/2`
against `fail 0/2` disagrees too). A side that did not answer — it did not run the spot, or its
verdict is skipped, not offered, unsupported or missing — takes no part: there is nothing to
disagree about. Spots one runtime answered and another did not are listed apart (`apart`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from conformance.exceptions import InputError
from conformance.fileio import read_regular
from conformance.report.matrix import VERDICTS, Cell, FeatureRow, Matrix, ScenarioResult, Verdict
from conformance.scenarios.catalog import GROUPS

ANSWERED: frozenset[str] = frozenset({"pass", "fail", "error"})
"""Verdicts that judged the runtime: only these can disagree."""

NOT_RUN = "not run"
"""What a side shows for a spot its matrix has no cell for."""

ScenarioKey = tuple[str, str]
"""(scenario id, check): one row of a spot's scenario list."""


@dataclass(frozen=True)
class Side:
    """One runtime's matrix, as given on the command line."""

    label: str
    path: Path
    matrix: Matrix


@dataclass(frozen=True)
class Spot:
    """One (provider, feature) across the sides, in side order (`None`: that side did not run it)."""

    provider: str
    feature: str
    cells: tuple[Cell | None, ...]

    @property
    def key(self) -> str:
        return f"{self.provider}/{self.feature}"

    @property
    def verdicts(self) -> tuple[Verdict | None, ...]:
        return tuple(c.verdict if c is not None else None for c in self.cells)

    def scenarios(self) -> list[ScenarioKey]:
        """Every scenario any side ran here, in first-seen order."""
        seen: dict[ScenarioKey, None] = {}
        for c in self.cells:
            for r in c.results if c is not None else ():
                seen.setdefault((r.scenario, r.check), None)
        return list(seen)

    def scenario_verdicts(self, key: ScenarioKey) -> tuple[Verdict | None, ...]:
        found = [_find(c, key) for c in self.cells]
        return tuple(r.verdict if r is not None else None for r in found)

    @property
    def disagree(self) -> bool:
        """Runtimes that answered this spot answered it differently (cell or scenario verdicts)."""
        if len({v for v in self.verdicts if v in ANSWERED}) > 1:
            return True
        return any(len({v for v in self.scenario_verdicts(k) if v in ANSWERED}) > 1 for k in self.scenarios())

    @property
    def apart(self) -> bool:
        """One runtime answered this spot and another ran it without answering (skipped, not offered, …)."""
        verdicts = [v for v in self.verdicts if v is not None]
        return any(v in ANSWERED for v in verdicts) and any(v not in ANSWERED for v in verdicts)

    def first_difference(self) -> tuple[str, str] | None:
        """(scenario id, first differing contract path) of the first scenario the answering runtimes
        disagree on, for people reading the terminal; None when they agree."""
        for key in self.scenarios():
            found = [r for c in self.cells if (r := _find(c, key)) is not None and r.verdict in ANSWERED]
            if len({r.verdict for r in found}) < 2:
                continue
            failing = next((r for r in found if r.verdict != "pass"), None)
            if failing is None:
                continue
            path = (
                failing.diff[0].path if failing.diff else failing.reason.splitlines()[0][:80] if failing.reason else ""
            )
            return key[0], path
        return None


def explaining(cell: Cell) -> ScenarioResult | None:
    """The first scenario whose verdict is the cell's (none for a passing cell): its reason says why."""
    if cell.verdict == "pass":
        return None
    return next((r for r in cell.results if r.verdict == cell.verdict), None)


def _find(cell: Cell | None, key: ScenarioKey) -> ScenarioResult | None:
    if cell is None:
        return None
    for r in cell.results:
        if (r.scenario, r.check) == key:
            return r
    return None


@dataclass(frozen=True)
class Comparison:
    sides: tuple[Side, ...]
    providers: list[str]
    features: list[FeatureRow]
    spots: dict[tuple[str, str], Spot]
    """Keyed (provider, feature); only spots at least one side has a cell for."""

    def spot(self, provider: str, feature: str) -> Spot | None:
        return self.spots.get((provider, feature))

    def ordered(self) -> list[Spot]:
        """Spots in table order: feature rows as grouped, then providers left to right."""
        return [s for row in grouped_rows(self.features) for p in self.providers if (s := self.spot(p, row.id))]

    def disagreements(self) -> list[Spot]:
        return [s for s in self.ordered() if s.disagree]

    def apart(self) -> list[Spot]:
        """Spots answered by some runtimes and not by others: listed, never counted as disagreements."""
        return [s for s in self.ordered() if s.apart and not s.disagree]

    def counts(self, side: int) -> dict[str, int]:
        """Cells of one side per verdict, plus `not run`: spots of the grid it has no cell for."""
        tally = Counter(c.verdict for s in self.spots.values() if (c := s.cells[side]) is not None)
        out: dict[str, int] = {v: tally.get(v, 0) for v in VERDICTS}
        out[NOT_RUN] = sum(1 for s in self.spots.values() if s.cells[side] is None)
        return out


def grouped_rows(features: Sequence[FeatureRow]) -> list[FeatureRow]:
    """Feature rows ordered by catalog group (unknown groups last), first-seen order within a group."""
    order = {g: i for i, g in enumerate(GROUPS)}
    indexed = sorted(enumerate(features), key=lambda ir: (order.get(ir[1].group, len(order)), ir[0]))
    return [row for _, row in indexed]


def load_matrix(path: Path) -> Matrix:
    """A matrix.json, or an `InputError` whose one-line message names the file."""
    where = str(path)
    if path.is_dir():
        raise InputError("is a directory, not a matrix.json", where=where)
    try:
        raw = read_regular(path)
    except FileNotFoundError:
        raise InputError("no such matrix file", where=where) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where=where) from None
    try:
        return Matrix.model_validate_json(raw)
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0]
        field = ".".join(str(p) for p in first["loc"]) or "(document)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        message = " ".join(str(first["msg"]).split())
        raise InputError(f"not a matrix.json: {field}: {message}{more}", where=where) from None


def labels(paths: Sequence[Path], runtimes: Sequence[str]) -> list[str]:
    """Column labels: the runtime name, with a path tail where two sides share a name."""
    names = Counter(runtimes)
    out = list(runtimes)
    for name, n in names.items():
        if n < 2:
            continue
        idx = [i for i, r in enumerate(runtimes) if r == name]
        tails = _distinct_tails([paths[i] for i in idx])
        for i, tail in zip(idx, tails, strict=True):
            out[i] = f"{name} ({tail})"
    seen: Counter[str] = Counter()
    for i, label in enumerate(out):  # the same file given twice
        seen[label] += 1
        if seen[label] > 1:
            out[i] = f"{label} #{seen[label]}"
    return out


def _distinct_tails(paths: Sequence[Path]) -> list[str]:
    parts = [p.resolve().parts for p in paths]
    names = {pp[-1] for pp in parts}
    for n in range(1, max(len(pp) for pp in parts) + 1):
        tails = [pp[-n:] for pp in parts]
        if len(set(tails)) == len(tails):
            if len(names) == 1 and n > 1:  # every file is `matrix.json`: its directory says it
                tails = [t[:-1] for t in tails]
            return ["/".join(t) for t in tails]
    return [str(p) for p in paths]


def compare(paths: Sequence[Path]) -> Comparison:
    """Load and merge the matrices at `paths` (in that column order)."""
    matrices = [load_matrix(p) for p in paths]
    return merge(list(paths), matrices)


def merge(paths: Sequence[Path], matrices: Sequence[Matrix]) -> Comparison:
    sides = tuple(
        Side(label, path, m)
        for label, path, m in zip(labels(paths, [m.runtime for m in matrices]), paths, matrices, strict=True)
    )
    providers: dict[str, None] = {}
    features: dict[str, FeatureRow] = {}
    for m in matrices:
        for p in m.providers:
            providers.setdefault(p, None)
        for row in m.features:
            features.setdefault(row.id, row)
    for m in matrices:  # cells outside a matrix's own lists still get a row and a column
        for c in m.cells:
            providers.setdefault(c.provider, None)
            features.setdefault(c.feature, FeatureRow(id=c.feature, group="other", title=c.feature))
    by_key = [{(c.provider, c.feature): c for c in m.cells} for m in matrices]
    keys = dict.fromkeys(k for cells in by_key for k in cells)
    spots = {(p, f): Spot(p, f, tuple(cells.get((p, f)) for cells in by_key)) for p, f in keys}
    return Comparison(sides, list(providers), list(features.values()), spots)
