"""Every row can fail: each mutant runtime turns exactly its rows red; a runtime that lacks a
capability is `skipped` there, never given another runtime's result."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all, run_check
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import mutants
from tests.harness.reaching import Row, Touched, reaching, recording, unreached_passes

ROOT = Path(__file__).resolve().parents[2]
PROVIDERS = ["openai", "anthropic", "gemini", "openrouter"]
DECODE_GENERATED = ("generated_rechunk", "generated_parity")
"""Generated rows that need `decode` alone."""


@pytest.fixture(scope="module")
def scenarios() -> list[Scenario]:
    return load_scenarios(ROOT / "scenarios")


def _results(
    runtime: object, scenarios: list[Scenario], rows: set[Row] | None = None, touched: Touched | None = None
) -> dict[Row, ScenarioResult]:
    """Every row on every column (or only `rows`). The `agent` rows, whose time is spent waiting on
    the harness's held answers, run each column in a thread of its own, beside the others; the other
    rows one by one, each credited in `touched` (when given) with the calls made while it runs (agent
    rows' calls, made in threads beside it, may be credited there too: a row's set can only be too large)."""

    def context() -> HarnessContext:
        ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
        ctx.extras["examples"] = 12  # generated rows: a smaller fixed budget, the same for every runtime
        return ctx

    def chosen(s: Scenario) -> list[str]:
        return [p for p in PROVIDERS if s.applies(p) and (rows is None or (s.id, p) in rows)]

    agent = [s for s in scenarios if s.check == "agent"]

    def agent_column(provider: str) -> list[ScenarioResult]:
        ctx = context()
        return [run_check(s, provider, ctx) for s in agent if provider in chosen(s)]

    with ThreadPoolExecutor(len(PROVIDERS)) as pool:
        waiting = pool.map(agent_column, PROVIDERS)
        ctx = context()
        done: list[ScenarioResult] = []
        for s in scenarios:
            if s.check != "agent" and (providers := chosen(s)):
                done += run_all([s], providers, ctx, on_start=None if touched is None else touched.started)
        done += [r for column in waiting for r in column]
    return {(r.scenario, r.provider): r for r in done}


REACHED: dict[Row, set[str]] = {}
"""Per row, the methods the reference's run reached (filled by the `reference` fixture)."""


def _reaching(mutant: type, reference: dict[Row, ScenarioResult], scenarios: list[Scenario]) -> set[Row] | None:
    """The rows whose reference run reached a method `mutant` replaces, and every agent row; None: all."""
    return reaching(mutant, REACHED, reference, always={s.id for s in scenarios if s.check == "agent"})


@pytest.fixture(scope="module")
def reference(scenarios: list[Scenario]) -> dict[Row, ScenarioResult]:
    runtime, touched = recording(ReferenceRuntime())
    results = _results(runtime, scenarios, touched=touched)
    REACHED.update(touched.reached(results, scenarios))
    return results


def test_the_reference_is_green(reference: dict[Row, ScenarioResult], scenarios: list[Scenario]) -> None:
    assert {r.verdict for r in reference.values()} <= {"pass", "unsupported", "missing"}
    # each scenario it passed reached one of its methods on some column, as the mutants' runs rely on
    # (`_reaching`; a store row's session, made once per run on its first column, stands for them all)
    agent = {s.id for s in scenarios if s.check == "agent"}
    assert unreached_passes(reference, REACHED) - agent == set()


RED_ROWS = {
    # the streaming path re-sends the oversized request instead of compressing it (seed 003)
    mutants.CompressesOnlyWithoutStreaming: {"retry_compress"},
    # waits its own second instead of Retry-After; auth-profile cooldowns come from the same hint
    mutants.IgnoresRetryAfter: {"retry_backoff", "auth_rotation"},
    mutants.NeverRotatesKeys: {"auth_rotation"},
    # the partial message of a failed stream: decode rows, and the 401 mid-stream turn (auth row)
    mutants.DropsThePartial: {"stream_error", "stream_truncated", "auth_rotation"},
    mutants.TracksCallsByIndex: {"parallel_tool_calls"},
    # orphaned results are part of the turn-order, id-remap and generated pathologies too
    mutants.RepairKeepsOrphans: {"orphan_tool_results", "turn_order", "tool_id_remap", "generated_repair"},
    mutants.TranscriptStopsAtDamage: {"jsonl_recovery"},
    # o3's temperature and stop sent without them instead of an unsupported_feature error
    mutants.DropsUnsupportedOptions: {"compat_flags"},
    # every streamed row that checks the raw stop reason, and the stream/non-stream parity row
    mutants.StreamLosesRawStop: {
        "empty_arguments",
        "generated_parity",
        "invalid_arguments",
        "parallel_tool_calls",
        "part_signatures",
        "reasoning_field",
        "redacted_thinking",
        "refusal",
        "server_tools",
        "stream_framing",
        "stream_text",
        "thinking_order",
        "thinking_signature",
        "tool_call",
        "usage",
    },
}


@pytest.mark.parametrize("mutant", list(RED_ROWS), ids=lambda m: m.__name__)
def test_each_mutant_turns_its_rows_red_and_nothing_else(
    mutant: type[ReferenceRuntime], scenarios: list[Scenario], reference: dict[Row, ScenarioResult]
) -> None:
    got = _results(mutant(), scenarios, _reaching(mutant, reference, scenarios))
    changed = {key for key, res in got.items() if res.verdict != reference[key].verdict}
    assert all(got[key].verdict == "fail" for key in changed), {k: got[k].verdict for k in changed}
    assert {got[key].feature for key in changed} == RED_ROWS[mutant]


def test_a_runtime_with_one_capability_is_skipped_where_it_cannot_answer(
    scenarios: list[Scenario], reference: dict[Row, ScenarioResult]
) -> None:
    got = _results(mutants.OnlyDecodes(), scenarios)
    for key, res in got.items():
        if reference[key].verdict in ("unsupported", "missing"):
            assert res.verdict == reference[key].verdict
        elif res.check in ("decode",) or (res.check == "generated" and res.feature in DECODE_GENERATED):
            assert res.verdict == "pass", (key, res.reason)
        else:
            assert res.verdict == "skipped", (key, res.verdict)
            assert res.reason.startswith("runtime only-decode does not implement `"), res.reason
    skipped = {r.check for r in got.values() if r.verdict == "skipped"}
    assert skipped == {"encode", "repair", "retry", "transcript", "handoff", "generated", "context", "store", "agent"}
