"""The retry-policy boundary rows and the turn loop's recoveries: each turns red under a runtime with one realistic policy bug,
and only its own rows among every turn row (retries, context), while the reference stays green."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
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
def reference(turn_rows: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    got = _results(ReferenceRuntime(), turn_rows)
    assert {r.verdict for r in got.values()} <= {"pass", "unsupported", "missing"}, {
        k: r.reason for k, r in got.items() if r.verdict not in ("pass", "unsupported", "missing")
    }
    return got


RED_ROWS = {
    policy_mutants.ConstantBackoff: {"retry_backoff_growth"},
    policy_mutants.OneAttemptTooMany: {"retry_attempt_cap", "retry_429_every_attempt"},
    # what the policy gives up on, retried: the 400s, the hint longer than max_wait_s, a second rejection
    policy_mutants.RetriesInvalidRequests: {
        "retry_never_invalid_request",
        "retry_hint_over_max_wait",
        "retry_compress_once",
        "retry_compress_only_raw_error",
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
    mutant: type, turn_rows: list[Scenario], reference: dict[tuple[str, str], ScenarioResult]
) -> None:
    got = _results(mutant(), turn_rows)
    changed = {key for key, res in got.items() if res.verdict != reference[key].verdict}
    assert all(got[key].verdict == "fail" for key in changed), {k: got[k].reason for k in changed}
    assert {key[0] for key in changed} == RED_ROWS[mutant]
    # red on every column where the row applies
    applies = {key for key, res in reference.items() if key[0] in RED_ROWS[mutant] and res.verdict == "pass"}
    assert changed == applies


def test_a_constant_back_off_passes_the_default_band_but_not_the_growth_row(
    turn_rows: list[Scenario], reference: dict[tuple[str, str], ScenarioResult]
) -> None:
    """Why retry_backoff_growth asks for growth: within the bounds alone, a constant back-off passes."""
    got = _results(policy_mutants.ConstantBackoff(), turn_rows)
    assert got["retry_overloaded_backoff", "openai"].verdict == "pass"
    assert got["retry_backoff_growth", "openai"].verdict == "fail"
    # 2 s lies within every bound; it is not 1.4 times the wait before it
    assert [d.path for d in got["retry_backoff_growth", "openai"].diff] == ["waits[1]", "waits[2]", "waits[3]"]
