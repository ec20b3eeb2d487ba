"""The retry-policy boundary rows and the turn loop's recoveries: each turns red under a runtime with one realistic policy bug,
and only its own rows among every turn row (retries, context), while the reference stays green."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.runtime.protocol import Declaration
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import context_mutants, policy_mutants

ROOT = Path(__file__).resolve().parents[2]
PROVIDERS = ["openai", "anthropic", "gemini", "openrouter", "ollama", "cerebras", "openai-compatible"]


@pytest.fixture(scope="module")
def turn_rows() -> list[Scenario]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.check == "retry"]


def _results(runtime: object, rows: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    return {(r.scenario, r.provider): r for r in run_all(rows, PROVIDERS, ctx)}


@pytest.fixture(scope="module")
def runs(turn_rows: list[Scenario]) -> Callable[[type], dict[tuple[str, str], ScenarioResult]]:
    """Each mutant's results, run once for the tests of this module that read them."""
    done: dict[type, dict[tuple[str, str], ScenarioResult]] = {}

    def of(mutant: type) -> dict[tuple[str, str], ScenarioResult]:
        if mutant not in done:
            done[mutant] = _results(mutant(), turn_rows)
        return done[mutant]

    return of


@pytest.fixture(scope="module")
def reference(turn_rows: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    got = _results(ReferenceRuntime(), turn_rows)
    assert {r.verdict for r in got.values()} <= {"pass", "unsupported", "missing"}, {
        k: r.reason for k, r in got.items() if r.verdict not in ("pass", "unsupported", "missing")
    }
    return got


RED_ROWS = {
    policy_mutants.ConstantBackoff: {"retry_backoff_growth"},
    # (the fallback row counts the attempts made before falling back too)
    policy_mutants.OneAttemptTooMany: {"retry_attempt_cap", "retry_429_every_attempt", "retry_provider_fallback"},
    # what the policy gives up on, retried: the 400s, the hint longer than max_wait_s, a second rejection
    policy_mutants.RetriesInvalidRequests: {
        "retry_never_invalid_request",
        "retry_hint_over_max_wait",
        "retry_compress_once",
        "retry_compress_only_raw_error",
        "retry_no_fallback_on_invalid_request",
    },
    policy_mutants.WaitsOutLongHints: {"retry_hint_over_max_wait"},
    policy_mutants.RotatesOnOverload: {"retry_overloaded_same_key"},
    # seed 001: a proxy's tool_type 400, retried with function_declarations, then functionDeclarations
    policy_mutants.NoToolTypeRetry: {"proxy_tool_type"},
    policy_mutants.SnakeCaseDeclarationsOnly: {"proxy_tool_type"},
    # seed 003: Cerebras/Qwen's "Tool is not present in the tools list" 400 is sent again
    policy_mutants.FailedGenerationIsFinal: {"retry_failed_tool_generation"},
    # seed 003: compress at most once, and only on the opaque raw ERROR (or a 413, a context overflow)
    policy_mutants.CompressesAgain: {"retry_compress_once"},
    policy_mutants.CompressesEveryBadRequest: {"retry_compress_only_raw_error"},
    # the auto-compaction trigger: a history exactly at the threshold is compacted
    context_mutants.CompactsOnlyAboveThreshold: {"auto_compact_at_threshold"},
}


@pytest.mark.parametrize("mutant", list(RED_ROWS), ids=lambda m: m.__name__)
def test_each_policy_mutant_turns_exactly_its_row_red(
    mutant: type,
    runs: Callable[[type], dict[tuple[str, str], ScenarioResult]],
    reference: dict[tuple[str, str], ScenarioResult],
) -> None:
    got = runs(mutant)
    changed = {key for key, res in got.items() if res.verdict != reference[key].verdict}
    assert all(got[key].verdict == "fail" for key in changed), {k: got[k].reason for k in changed}
    assert {key[0] for key in changed} == RED_ROWS[mutant]
    # red on every column where the row applies
    applies = {key for key, res in reference.items() if key[0] in RED_ROWS[mutant] and res.verdict == "pass"}
    assert changed == applies


def test_a_constant_back_off_passes_the_default_band_but_not_the_growth_row(
    runs: Callable[[type], dict[tuple[str, str], ScenarioResult]],
) -> None:
    """Why retry_backoff_growth asks for growth: within the bounds alone, a constant back-off passes."""
    got = runs(policy_mutants.ConstantBackoff)
    assert got["retry_overloaded_backoff", "openai"].verdict == "pass"
    assert got["retry_backoff_growth", "openai"].verdict == "fail"
    # 2 s lies within every bound; it is not 1.4 times the wait before it
    assert [d.path for d in got["retry_backoff_growth", "openai"].diff] == ["waits[1]", "waits[2]", "waits[3]"]


# policy rows: a runtime that never declared the policy a row rests on is not red for differing from it


def _row(got: dict[tuple[str, str], ScenarioResult], scenario: str) -> dict[str, ScenarioResult]:
    return {p: r for (s, p), r in got.items() if s == scenario}


def test_an_undeclared_policy_that_differs_is_counted_apart_never_red(
    turn_rows: list[Scenario], reference: dict[tuple[str, str], ScenarioResult]
) -> None:
    """A constant back-off and no ceiling on a hint, in a runtime that declares no policy: the growth
    and max-wait rows say "differs from the recommended policy", classed `policy`, and no cell is red."""
    for mutant, scenario in (
        (policy_mutants.ConstantBackoff, "retry_backoff_growth"),
        (policy_mutants.WaitsOutLongHints, "retry_hint_over_max_wait"),
        (policy_mutants.OneAttemptTooMany, "retry_attempt_cap"),
    ):
        got = _results(policy_mutants.undeclared(mutant), turn_rows)
        applies = {p for (s, p), r in reference.items() if s == scenario and r.verdict == "pass"}
        row = _row(got, scenario)
        assert applies and {p: row[p].verdict for p in applies} == dict.fromkeys(applies, "policy"), mutant
        assert {row[p].evidence_class for p in applies} == {"policy"}
        assert all(r.verdict not in ("fail", "error") for r in got.values()), mutant


def test_a_retry_sooner_than_the_hint_stays_a_fail_without_a_declared_policy(
    turn_rows: list[Scenario], reference: dict[tuple[str, str], ScenarioResult]
) -> None:
    """Inside the max-wait row, the provider's hint is a provider fact: sending again before it is red
    whatever the runtime's policy."""
    got = _results(policy_mutants.undeclared(policy_mutants.RetriesInvalidRequests), turn_rows)
    row = _row(got, "retry_hint_over_max_wait")
    applies = [p for p, r in _row(reference, "retry_hint_over_max_wait").items() if r.verdict == "pass"]
    assert {row[p].verdict for p in applies} == {"fail"}
    assert all(any(d.basis == "provider" for d in row[p].diff) for p in applies)
    # and the 400 it retries is red as before
    assert _row(got, "retry_never_invalid_request")["openai"].verdict == "fail"


class _CannotCapWaits(ReferenceRuntime):
    name = "cannot-cap-waits"

    @property
    def declaration(self) -> Declaration:
        return policy_mutants.declaring(self.name, max_wait_s="unavailable")


class _OwnValues(ReferenceRuntime):
    """Follows its own fixed values, not the row's: a 30 s ceiling, 3 attempts."""

    name = "own-values"

    @property
    def declaration(self) -> Declaration:
        return policy_mutants.declaring(self.name, max_wait_s=30.0, max_attempts=3.0)


class _LongCeiling(policy_mutants.WaitsOutLongHints):
    @property
    def declaration(self) -> Declaration:
        return policy_mutants.declaring(self.name, max_wait_s=10.0**9)


def test_a_setting_that_cannot_be_given_is_not_offered(turn_rows: list[Scenario]) -> None:
    got = _results(_CannotCapWaits(), turn_rows)
    row = _row(got, "retry_hint_over_max_wait")
    assert row["openai"].verdict == "not_offered" and row["openai"].evidence_class == "policy"
    assert _row(got, "retry_attempt_cap")["openai"].verdict == "pass"


def test_a_declared_value_is_judged_where_the_row_holds_under_it(turn_rows: list[Scenario]) -> None:
    """A 30 s ceiling gives up on a 300 s hint as 60 s does: judged (and passes). A ceiling above the
    hint is the runtime's own declared policy, under which the row does not hold: `policy`."""
    own = _results(_OwnValues(), turn_rows)
    assert _row(own, "retry_hint_over_max_wait")["openai"].verdict == "pass"
    assert _row(own, "retry_attempt_cap")["openai"].verdict == "pass"
    # 3 attempts where the growth row needs five: the row is not this runtime's policy
    assert _row(own, "retry_backoff_growth")["openai"].verdict == "policy"
    long = _row(_results(_LongCeiling(), turn_rows), "retry_hint_over_max_wait")
    assert long["openai"].verdict == "policy" and "max_wait_s=1e+09" in long["openai"].reason


class _ClaimsThreeAttempts(policy_mutants.OneAttemptTooMany):
    @property
    def declaration(self) -> Declaration:
        return policy_mutants.declaring(self.name, max_attempts=3.0)


def test_a_declared_value_the_runtime_breaks_is_red(turn_rows: list[Scenario]) -> None:
    got = _row(_results(_ClaimsThreeAttempts(), turn_rows), "retry_attempt_cap")
    assert got["openai"].verdict == "fail"


def test_the_policy_rows_are_marked_so(turn_rows: list[Scenario]) -> None:
    policy = {s.id for s in load_scenarios(ROOT / "scenarios") if s.spec.basis == "policy"}
    assert {
        "retry_hint_over_max_wait",
        "retry_attempt_cap",
        "retry_backoff_growth",
        "retry_overloaded_backoff",
        "encode_max_tokens_output_limit",
        "encode_max_tokens_window_remainder",
        "auto_compact_at_threshold",
        "trim_derived_caps",
    } <= policy
    # what the provider asks is not policy: its hint, and a 400 that no retry cures
    assert not policy & {"retry_429_retry_after", "retry_gemini_retry_info", "retry_never_invalid_request"}


def test_a_declared_policy_broken_is_sourced_by_the_declaration(
    runs: Callable[[type], dict[tuple[str, str], ScenarioResult]],
) -> None:
    got = _row(runs(policy_mutants.OneAttemptTooMany), "retry_attempt_cap")["openai"]
    assert got.verdict == "fail" and got.rule_source == "policy the runtime declared: max_attempts"
    # the wire it replays is authored, and every shape of it is one real OpenAI traffic shows
    assert got.wire_source == "authored: matches real openai traffic (all 4 shapes seen)"
    assert got.evidence_class == "defect"
