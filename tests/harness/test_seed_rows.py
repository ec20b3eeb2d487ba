"""The rows that judge the seeds' turn-loop behaviours, in the columns of a default run: each turns red
under a runtime with one realistic bug, while the reference stays green."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.capabilities import default_columns, matrix_providers
from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import seed_mutants
from tests.harness.reaching import Row, Touched, merged, reaching, recording, unreached_passes

ROOT = Path(__file__).resolve().parents[2]

RED_ROWS: dict[type, set[str]] = {
    # seed 001: a Gemini-compatible proxy's rejections, recovered from
    seed_mutants.NoToolTypeRetry: {"proxy_tool_type"},
    seed_mutants.NoProxyMode: {"proxy_valid_role"},
    # seed 002: the effective max_tokens is at least 1
    seed_mutants.NoTokenFloor: {"encode_max_tokens_floor"},
    # seed 004: the reasoning state is reset for every response
    seed_mutants.SharedThinkSplitter: {"think_tags_reset_retry"},
    # seed 001: the count starts at the latest usage, and an image added after it costs tokens
    seed_mutants.FirstUsage: {"token_count_latest_usage", "token_count_image_after_baseline"},
    seed_mutants.ImagesCostNothing: {"token_count_image_after_baseline"},
    # seed 000, 5.1: that image counts towards auto-compaction's threshold too
    seed_mutants.TriggerIgnoresImages: {"auto_compact_image_after_baseline"},
    # seed 000, 5.1: an exact count is the provider's own
    seed_mutants.ExactCountsTextOnly: {"token_count_exact"},
    # seed 000, 3.2 and 4.2: content lost in a repair or a transcript's load is reported
    seed_mutants.DropsOrphansSilently: {"repair_orphan_tool_result"},
    seed_mutants.SkipsDamageSilently: {
        "transcript_truncated_tail",
        "transcript_glued_fragment",
        "transcript_lone_surrogate",
    },
    # seed 000, 4.1: concurrent writers through one store session lose and mix nothing
    seed_mutants.UnlockedStore: {"store_concurrent_writes"},
    # seed 002: rate limits propagated within the attempt cap; a refused key falls back to the next
    seed_mutants.RateLimitsUncapped: {"retry_429_every_attempt"},
    seed_mutants.AuthIsFinal: {"retry_401_rotation"},
    # seed 002: another provider when the first fails on its side, and only then
    seed_mutants.NoFallback: {"retry_provider_fallback"},
    seed_mutants.FallsBackOnAnything: {"retry_no_fallback_on_invalid_request"},
}


@pytest.fixture(scope="module")
def rows() -> list[Scenario]:
    wanted = set().union(*RED_ROWS.values())
    return [s for s in load_scenarios(ROOT / "scenarios") if s.id in wanted]


def _results(
    runtime: Any, rows: list[Scenario], only: set[Row] | None = None, touched: Touched | None = None
) -> dict[Row, ScenarioResult]:
    """Every row on the default columns (or only the rows of `only`), each credited in `touched`
    (when given) with the runtime's methods it reached."""
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    on_start = None if touched is None else touched.started
    if only is None:
        return {(r.scenario, r.provider): r for r in run_all(rows, default_columns(), ctx, on_start=on_start)}
    out: dict[Row, ScenarioResult] = {}
    for s in rows:
        if providers := [p for p in default_columns() if (s.id, p) in only]:
            out.update({(r.scenario, r.provider): r for r in run_all([s], providers, ctx, on_start=on_start)})
    return out


REACHED: dict[Row, set[str]] = {}
"""Per row, the methods the reference's run reached (filled by the `reference` fixture)."""


@pytest.fixture(scope="module")
def reference(rows: list[Scenario]) -> dict[Row, ScenarioResult]:
    runtime, touched = recording(ReferenceRuntime())
    got = _results(runtime, rows, touched=touched)
    assert {r.verdict for r in got.values()} <= {"pass", "unsupported", "missing"}, {
        k: r.reason for k, r in got.items() if r.verdict not in ("pass", "unsupported", "missing")
    }
    REACHED.update(touched.reached(got, rows))
    # each scenario passed reached one of its methods, as the mutants' runs rely on (`reaching`)
    assert unreached_passes(got, REACHED) == set()
    return got


def test_the_generic_column_is_in_a_default_run_for_the_rows_that_name_it() -> None:
    assert "openai-compatible" in default_columns()
    assert "openai-compatible" not in matrix_providers()
    scenarios = load_scenarios(ROOT / "scenarios")
    named = {s.id for s in scenarios if s.applies("openai-compatible")}
    assert {"proxy_tool_type", "proxy_valid_role"} <= named
    assert named == {s.id for s in scenarios if "openai-compatible" in s.spec.providers}


@pytest.mark.parametrize("mutant", list(RED_ROWS), ids=lambda m: m.__name__)
def test_each_mutant_turns_its_row_red_in_a_default_run(
    mutant: type, rows: list[Scenario], reference: dict[Row, ScenarioResult]
) -> None:
    # a mutant that only replaces methods runs on the rows that reached one of them; the others run
    # the reference's code alone and keep its result (`tests/harness/reaching.py`)
    got = merged(reference, _results(mutant(), rows, reaching(mutant, REACHED, reference)))
    changed = {key for key, res in got.items() if res.verdict != reference[key].verdict}
    assert all(got[key].verdict == "fail" for key in changed), {k: got[k].reason for k in changed}
    assert {key[0] for key in changed} == RED_ROWS[mutant]


def test_a_runtime_written_to_the_seeds_letter_passes_the_trimming_row() -> None:
    """Its own cap formula (not the reference's 135 and 90 characters) within the seed's bound."""
    row = [s for s in load_scenarios(ROOT / "scenarios") if s.id == "trim_derived_caps"]
    runtime = seed_mutants.SeedLetterTrim()
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=runtime.name)
    got = {r.provider: r for r in run_all(row, matrix_providers(), ctx)}
    assert {r.verdict for r in got.values()} == {"pass"}, {p: r.reason for p, r in got.items()}
    sent = runtime.context(
        {
            "op": "trim",
            "provider": "openai",
            "conversation": row[0].conversation("openai"),
            "settings": row[0].spec.input["settings"],
        }
    )["messages"]
    reference = ReferenceRuntime().context(
        {
            "op": "trim",
            "provider": "openai",
            "conversation": row[0].conversation("openai"),
            "settings": row[0].spec.input["settings"],
        }
    )["messages"]
    assert sent != reference  # another formula, the same row passed


def test_a_runtime_written_to_the_seeds_letter_passes_the_compression_rows() -> None:
    """Seed 003's own compression form (`result` holding the omitted note; `… [truncated N chars]`)
    earns every compression row the reference's form earns."""
    rows = [s for s in load_scenarios(ROOT / "scenarios") if s.id.startswith("retry_compress")]
    verdicts = {}
    for runtime in (ReferenceRuntime(), seed_mutants.SeedLetterCompression()):
        ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(runtime.name))
        verdicts[runtime.name] = {(r.scenario, r.provider): r.verdict for r in run_all(rows, default_columns(), ctx)}
    reference, letter = verdicts.values()
    assert reference == letter
    assert {v for (s, _), v in letter.items() if s == "retry_compress_json"} == {"pass"}


def test_a_runtime_without_a_tokenizer_is_not_judged_on_the_exact_count() -> None:
    """Seed 000, 5.1 makes an exact count depend on the provider's tokenizer: a runtime that has none
    answers `exact: null` and reads `unsupported`, not `fail`."""

    class NoTokenizer(ReferenceRuntime):
        name = "no-tokenizer"

        def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
            return {**super().context(request, transport), "exact": None}

    row = [s for s in load_scenarios(ROOT / "scenarios") if s.id == "token_count_exact"]
    ctx = HarnessContext(root=ROOT, runtime=NoTokenizer(), runtime_name="no-tokenizer")
    got = {r.provider: r.verdict for r in run_all(row, default_columns(), ctx)}
    assert got == {"openai": "unsupported", "azure": "unsupported"}
