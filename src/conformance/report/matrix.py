"""`reports/matrix.json`: the one artefact of a run. The terminal table and the HTML page both
render it; `docs/matrix-json.md` documents it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from conformance.compare.results import EVIDENCE_CLASSES, VERDICTS, DiffEntry, ScenarioResult, Verdict

SCHEMA_VERSION = 1
DEFECT_KINDS = ("wrong", "extra", "crash")


RealVerdict = Literal["pass", "fail", "error", "skipped", "not_offered", "unverified"]
"""A real call's verdict: judged (`pass`, `fail`, `error`: the runtime raised or answered something
that is no outcome), or not judged: `skipped` (the runtime has no `decode`), `not_offered` (its
declaration leaves out the provider, the feature or a field the feature is about), `unverified`
(the call's expected form is not reviewed: the official SDK reads it otherwise without a named
reason, or no form is written yet)."""
REAL_VERDICTS: tuple[RealVerdict, ...] = get_args(RealVerdict)
FAILING_SHOWN = 20
"""Failing real calls a cell (or a column) keeps with their diff; the rest are counted in `more`."""


class RealCall(BaseModel):
    """One real generation call that did not pass, with its diff and the recording's source."""

    model_config = ConfigDict(extra="forbid")

    call: str
    """`<recording path in corpus/>#<interaction index>`."""
    verdict: RealVerdict
    reason: str = ""
    diff: list[DiffEntry] = Field(default_factory=list)
    source: str = ""
    """The recording in its source repository at its commit."""
    source_repo: str = ""
    license: str = ""


class RealTraffic(BaseModel):
    """Real generation calls judged in one cell (or one column): how many, per verdict, and the
    calls that failed or erred (the first `FAILING_SHOWN`, with `more` saying how many others)."""

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    counts: dict[str, int] = Field(default_factory=dict)
    """Calls per verdict (`REAL_VERDICTS`)."""
    failing: list[RealCall] = Field(default_factory=list)
    more: int = 0

    def add(self, verdict: str, call: RealCall | None) -> None:
        """Count one call; a failing one (`call` given) is kept while fewer than `FAILING_SHOWN` are."""
        self.calls += 1
        self.counts[verdict] = self.counts.get(verdict, 0) + 1
        if call is not None and verdict in ("fail", "error"):
            if len(self.failing) < FAILING_SHOWN:
                self.failing.append(call)
            else:
                self.more += 1

    @property
    def passed(self) -> int:
        """Calls that pass."""
        return self.counts.get("pass", 0)

    @property
    def red(self) -> Literal["error", "fail"] | None:
        """`error` or `fail` when a call erred or failed (the cell turns so), else None."""
        if self.counts.get("error"):
            return "error"
        return "fail" if self.counts.get("fail") else None

    def summary(self) -> str:
        """`41 calls, 39 pass` (with the failing, erring and unjudged counts when there are any)."""
        rest = ", ".join(f"{self.counts[v]} {v}" for v in REAL_VERDICTS[1:] if self.counts.get(v))
        return f"{self.calls} call{'s' if self.calls != 1 else ''}, {self.passed} pass" + (f", {rest}" if rest else "")


class RealColumn(BaseModel):
    """One provider column's real traffic in a run (`authored_only` when no real call reads it)."""

    model_config = ConfigDict(extra="forbid")

    provider: str
    authored_only: bool = False
    """No real recording of the corpus is read by this column: its cells rest on authored cassettes."""
    in_matrix: bool = True
    """False for a profile that reads real calls but is no column of the run (e.g. `openai-compatible`,
    the generic profile of providers without their own): its calls count in the totals only."""
    traffic: RealTraffic = Field(default_factory=RealTraffic)


class RealBacking(BaseModel):
    """The public real recordings behind a cell (from the evidence manifest)."""

    recordings: int
    """Recordings whose decoded calls exercise this provider × feature."""
    calls: int = 0
    """Generation calls in those recordings."""
    sdk_agree: int = 0
    """Of those calls, how many the decode reads as the official SDK does."""
    sources: list[str] = Field(default_factory=list)
    """Source repositories, most recordings first."""
    files: list[str] = Field(default_factory=list)
    """Up to five of the recordings, as their file in the source repository at its commit."""
    traffic: RealTraffic | None = None
    """The cell's real generation calls as the runtime under test decoded them (a call counts in
    every cell whose feature its decode shows); None when the run left real traffic out."""


class Cell(BaseModel):
    """One provider × feature: its verdict (see `cell_verdict`) and the scenario results behind it."""

    model_config = ConfigDict(extra="forbid")

    provider: str
    feature: str
    verdict: Verdict
    counts: dict[str, int]
    """Scenarios per verdict in this cell."""
    results: list[ScenarioResult]
    real: RealBacking | None = None
    """Real recordings that back this cell; None when authored cassettes alone do."""


class FeatureRow(BaseModel):
    """A feature row of the matrix: id, group and title."""

    id: str
    group: str
    title: str


class Provenance(BaseModel):
    """Where a provider's cassettes came from (as far as the cassettes say)."""

    provider: str
    cassettes: int = 0
    recorded: list[str] = Field(default_factory=list)
    """Dates of the cassettes recorded from the live provider."""
    authored: list[str] = Field(default_factory=list)
    """Dates of the cassettes written by hand or with the emulator."""
    evidence: dict[str, int] = Field(default_factory=dict)
    """Cassettes by kind of evidence: `authored`, `recorded` (live), `emulated` (recorded on loopback)."""
    models: list[str] = Field(default_factory=list)


class Matrix(BaseModel):
    """The whole run: providers × features, with every result and its provenance (`matrix.json`)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    harness_version: str
    runtime: str
    """The runtime under test (`reference` for the bundled one, else `module:factory`)."""
    generated_at: str
    cassette_dir: str
    scenario_dir: str
    providers: list[str]
    features: list[FeatureRow]
    cells: list[Cell]
    counts: dict[str, int]
    """Cells per verdict."""
    provenance: list[Provenance] = Field(default_factory=list)
    scenario_counts: dict[str, int] = Field(default_factory=dict)
    """Scenario × provider results per verdict, summed over the cells (filled from the cells when
    absent): a passing cell may hold missing or skipped scenarios, which only these counts show."""
    evidence_counts: dict[str, int] = Field(default_factory=dict)
    """Cells by what backs them: `real` (public real recordings too), `authored` (authored
    cassettes alone); filled from the cells when absent."""

    @model_validator(mode="before")
    @classmethod
    def _known_schema(cls, data: object) -> object:
        """A matrix of a schema newer than this harness reads is refused before any field is read
        (its fields may mean something else); a schema that is not a positive integer is too."""
        version = data.get("schema_version", SCHEMA_VERSION) if isinstance(data, dict) else SCHEMA_VERSION
        if version.__class__ is not int or not 1 <= version <= SCHEMA_VERSION:
            raise ValueError(
                f"schema_version {str(version)[:20]!s} is not one this harness reads ({SCHEMA_VERSION}); "
                "it was written by another version of conformance"
            )
        return data

    defects: dict[str, int] = Field(default_factory=dict)
    """Scenario results that say the runtime did something wrong, by kind: `wrong`, `extra`, `crash`."""
    gaps: dict[str, int] = Field(default_factory=dict)
    """Scenario results that say it did not do something: `missing` values, rows `not_offered`."""
    declaration: dict[str, Any] | None = None
    """What the runtime under test declared it offers (`runtime.protocol.Declaration`), when it did."""
    interrupted: bool = False
    """The run was stopped (Ctrl-C) before every check ran: the results are partial."""
    real_traffic: list[RealColumn] | None = None
    """Per column, the real generation calls of the shipped corpus judged in this run (and the
    columns no real call reads, `authored_only`); None when the run left real traffic out."""

    def real_totals(self) -> RealTraffic | None:
        """Every judged real call of the run (each once), or None when the run left them out."""
        if self.real_traffic is None:
            return None
        total = RealTraffic()
        for column in self.real_traffic:
            total.calls += column.traffic.calls
            for verdict, n in column.traffic.counts.items():
                total.counts[verdict] = total.counts.get(verdict, 0) + n
        return total

    class_counts: dict[str, int] = Field(default_factory=dict)
    """Scenario results that are not green, by the class their evidence gives them (`defect`,
    `limitation`, `policy`, `unverified`; `harness.classify`); filled from the cells when absent."""

    @model_validator(mode="after")
    def _count_classes(self) -> Matrix:
        if not self.class_counts:
            results = [r for c in self.cells for r in c.results]
            self.class_counts = {k: sum(1 for r in results if r.evidence_class == k) for k in EVIDENCE_CLASSES}
        return self

    @model_validator(mode="after")
    def _count_kinds(self) -> Matrix:
        if not self.defects and not self.gaps:
            results = [r for c in self.cells for r in c.results]
            self.defects = {k: sum(1 for r in results if r.defect and r.fail_kind == k) for k in DEFECT_KINDS}
            self.gaps = {
                "missing": sum(1 for r in results if r.verdict == "fail" and r.fail_kind == "missing"),
                "not_offered": sum(1 for r in results if r.verdict == "not_offered"),
            }
        return self

    @model_validator(mode="after")
    def _count_scenarios(self) -> Matrix:
        if not self.scenario_counts:
            totals: dict[str, int] = {}
            for cell in self.cells:
                for verdict, n in cell.counts.items():
                    totals[verdict] = totals.get(verdict, 0) + n
            self.scenario_counts = {v: totals.get(v, 0) for v in VERDICTS}
        if not self.evidence_counts:
            real = sum(c.real is not None for c in self.cells)
            self.evidence_counts = {"real": real, "authored": len(self.cells) - real}
        return self

    def cell(self, provider: str, feature: str) -> Cell | None:
        """The cell of `provider` × `feature`, or None when the run has none."""
        for c in self.cells:
            if c.provider == provider and c.feature == feature:
                return c
        return None

    def failed(self) -> bool:
        """Whether any cell is `fail` or `error`, or any real call of the run failed or erred (a call
        of a profile that is no column of the run too): the run's exit status."""
        red_columns = any(c.traffic.red for c in self.real_traffic or [])
        return red_columns or any(c.verdict in ("fail", "error") for c in self.cells)

    def save(self, path: Path) -> None:
        """Write as `matrix.json` (indented, replaced in one step)."""
        from conformance.fileio import atomic_write

        atomic_write(path, self.model_dump_json(indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> Matrix:
        """Read a `matrix.json`; `InputError` naming the file when it is missing or not a matrix."""
        from conformance.exceptions import InputError, one_line
        from conformance.fileio import read_regular

        try:
            return cls.model_validate_json(read_regular(path))
        except FileNotFoundError:
            raise InputError("no such matrix file", where=str(path)) from None
        except ValueError as exc:
            raise InputError(f"not a matrix.json: {one_line(exc)}", where=str(path)) from None


_PRECEDENCE: tuple[Verdict, ...] = (
    "error",
    "fail",
    "policy",
    "pass",
    "skipped",
    "not_offered",
    "missing",
    "unsupported",
)


def cell_verdict(results: list[ScenarioResult]) -> Verdict:
    """error > fail > policy > pass > skipped > missing > unsupported: a cell fails if any scenario
    fails; one whose only difference is from the recommended policy is `policy`, never red."""
    present = {r.verdict for r in results}
    for verdict in _PRECEDENCE:
        if verdict in present:
            return verdict
    return "missing"


__all__ = [
    "REAL_VERDICTS",
    "SCHEMA_VERSION",
    "VERDICTS",
    "Cell",
    "DiffEntry",
    "FeatureRow",
    "Matrix",
    "Provenance",
    "RealBacking",
    "RealCall",
    "RealColumn",
    "RealTraffic",
    "RealVerdict",
    "ScenarioResult",
    "Verdict",
    "cell_verdict",
]
