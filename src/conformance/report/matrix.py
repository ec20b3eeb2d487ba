"""`reports/matrix.json`: the one artefact of a run. The terminal table and the HTML page both
render it; `docs/matrix-json.md` documents it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["pass", "fail", "unsupported", "missing", "error", "skipped"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "unsupported", "missing", "error", "skipped")

SCHEMA_VERSION = 1


class DiffEntry(BaseModel):
    """One difference between expected and actual, at a contract path like `message.content[0].text`."""

    model_config = ConfigDict(extra="forbid")

    path: str
    change: Literal["changed", "added", "removed", "type_changed"]
    expected: Any = None
    actual: Any = None


class ScenarioResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scenario: str
    title: str
    feature: str
    check: str
    provider: str
    verdict: Verdict
    reason: str = ""
    scenario_path: str | None = None
    cassette: str | None = None
    expected: Any = None
    actual: Any = None
    diff: list[DiffEntry] = Field(default_factory=list)
    examples: int | None = None
    """Generated checks: examples run."""


class Cell(BaseModel):
    model_config = ConfigDict(extra="forbid")

    provider: str
    feature: str
    verdict: Verdict
    counts: dict[str, int]
    """Scenarios per verdict in this cell."""
    results: list[ScenarioResult]


class FeatureRow(BaseModel):
    id: str
    group: str
    title: str


class Provenance(BaseModel):
    """Where a provider's cassettes came from (as far as the cassettes say)."""

    provider: str
    cassettes: int = 0
    recorded: list[str] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list)


class Matrix(BaseModel):
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

    def cell(self, provider: str, feature: str) -> Cell | None:
        for c in self.cells:
            if c.provider == provider and c.feature == feature:
                return c
        return None

    def failed(self) -> bool:
        return any(c.verdict in ("fail", "error") for c in self.cells)

    def save(self, path: Path) -> None:
        from conformance.fileio import atomic_write

        atomic_write(path, self.model_dump_json(indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> Matrix:
        from conformance.exceptions import InputError, one_line

        try:
            return cls.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            raise InputError("no such matrix file", where=str(path)) from None
        except ValueError as exc:
            raise InputError(f"not a matrix.json: {one_line(exc)}", where=str(path)) from None


_PRECEDENCE: tuple[Verdict, ...] = ("error", "fail", "pass", "skipped", "missing", "unsupported")


def cell_verdict(results: list[ScenarioResult]) -> Verdict:
    """error > fail > pass > skipped > missing > unsupported: a cell fails if any scenario fails."""
    present = {r.verdict for r in results}
    for verdict in _PRECEDENCE:
        if verdict in present:
            return verdict
    return "missing"
