"""The tool-schema rows: a parameter named `format` and `oneOf`/`anyOf` each turn red under a
sanitizer with one realistic bug, on exactly the columns whose provider restricts schemas (the
profile's `schema_string_formats` / `schema_flatten_combinators`), while the reference stays green."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.capabilities import get_profile
from conformance.harness import HarnessContext, run_all
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import schema_mutants

ROOT = Path(__file__).resolve().parents[2]
ROW = "encode_schema_format_combinators"


@pytest.fixture(scope="module")
def schema_rows() -> list[Scenario]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.feature == "schema_sanitize"]


def _verdicts(runtime: object, rows: list[Scenario]) -> dict[tuple[str, str], str]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    providers = sorted({p for s in rows for p in s.spec.providers})
    return {(r.scenario, r.provider): r.verdict for r in run_all(rows, providers, ctx)}


def test_the_reference_passes_the_row_on_every_column(schema_rows: list[Scenario]) -> None:
    got = _verdicts(ReferenceRuntime(), schema_rows)
    row = {p: v for (s, p), v in got.items() if s == ROW}
    assert len(row) == 20 and set(row.values()) == {"pass"}, row


@pytest.mark.parametrize(
    ("mutant", "restricts"),
    [
        (schema_mutants.StripsFormatByName, lambda p: get_profile(p).schema_string_formats is not None),
        (schema_mutants.KeepsOneOf, lambda p: get_profile(p).schema_flatten_combinators),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_each_schema_mutant_turns_the_row_red_where_the_provider_restricts_schemas(
    mutant: type, restricts: object, schema_rows: list[Scenario]
) -> None:
    reference = _verdicts(ReferenceRuntime(), schema_rows)
    got = _verdicts(mutant(), schema_rows)
    changed = {key for key, v in got.items() if v != reference[key]}
    assert all(got[key] == "fail" for key in changed)
    expected = {(ROW, p) for (s, p) in got if s == ROW and restricts(p)}  # type: ignore[operator]
    assert changed == expected and {p for _, p in expected} >= {"gemini", "vertex"}
