"""Every row can fail: each mutant runtime turns exactly its rows red; a runtime that lacks a
capability is `skipped` there, never given another runtime's result."""

from __future__ import annotations

import functools
import inspect
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all, run_check
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import mutants

ROOT = Path(__file__).resolve().parents[2]
PROVIDERS = ["openai", "anthropic", "gemini", "openrouter"]
DECODE_GENERATED = ("generated_rechunk", "generated_parity")
"""Generated rows that need `decode` alone."""


@pytest.fixture(scope="module")
def scenarios() -> list[Scenario]:
    return load_scenarios(ROOT / "scenarios")


Row = tuple[str, str]
"""(scenario, provider)."""


def _results(runtime: object, scenarios: list[Scenario], rows: set[Row] | None = None) -> dict[Row, ScenarioResult]:
    """Every row on every column (or only `rows`). The `agent` rows, whose time is spent waiting on
    the harness's held answers, run each column in a thread of its own, beside the others; the other
    rows one by one."""

    def context() -> HarnessContext:
        ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
        ctx.extras["examples"] = 12  # generated rows: a smaller fixed budget, the same for every runtime
        return ctx

    def chosen(s: Scenario) -> list[str]:
        return [p for p in PROVIDERS if s.applies(p) and (rows is None or (s.id, p) in rows)]

    agent = [s for s in scenarios if s.check == "agent"]
    touched: _Touched | None = getattr(runtime, "touched", None)

    def agent_column(provider: str) -> list[ScenarioResult]:
        ctx = context()
        return [run_check(s, provider, ctx) for s in agent if provider in chosen(s)]

    def started(scenario: Scenario, provider: str) -> None:
        if touched is not None:
            touched.now = (scenario.id, provider)

    with ThreadPoolExecutor(len(PROVIDERS)) as pool:
        waiting = pool.map(agent_column, PROVIDERS)
        ctx = context()
        done: list[ScenarioResult] = []
        for s in scenarios:
            if s.check != "agent" and (providers := chosen(s)):
                done += run_all([s], providers, ctx, on_start=started)
        done += [r for column in waiting for r in column]
    return {(r.scenario, r.provider): r for r in done}


class _Touched:
    """Which of the runtime's methods each row reached, from the harness or from the runtime itself.
    A call is credited to the non-agent row running at the time; an agent row's calls, made in
    threads beside it, may be credited there too: a row's set can only be too large."""

    def __init__(self) -> None:
        self.now: Row | None = None
        self.by_row: dict[Row, set[str]] = {}

    def record(self, name: str) -> None:
        if self.now is not None:
            self.by_row.setdefault(self.now, set()).add(name)


def _recording(runtime: ReferenceRuntime) -> ReferenceRuntime:
    """`runtime` with every method of its class recording, in `runtime.touched`, the row calling it."""
    touched = _Touched()
    for name, _ in inspect.getmembers(type(runtime), inspect.isfunction):
        if name.startswith("__"):
            continue
        bound = getattr(runtime, name)

        def call(*args: Any, _name: str = name, _bound: Any = bound, **kwargs: Any) -> Any:
            touched.record(_name)
            return _bound(*args, **kwargs)

        setattr(runtime, name, functools.wraps(bound)(call))
    runtime.touched = touched  # type: ignore[attr-defined]
    return runtime


UNCHANGED = frozenset({"name", "__doc__", "__module__", "__qualname__", "__dict__", "__weakref__"})
"""What a mutant class may set without changing the reference's behaviour beyond its methods."""


def _replaced_methods(mutant: type) -> set[str] | None:
    """The reference's methods `mutant` replaces; None if it changes anything else (state, a constant)."""
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


REACHED: dict[Row, set[str]] = {}
"""Per row, the methods the reference's run reached (filled by the `reference` fixture)."""


def _reaching(mutant: type, reference: dict[Row, ScenarioResult], scenarios: list[Scenario]) -> set[Row] | None:
    """The rows whose reference run reached a method `mutant` replaces, and every agent row; None: all.
    A row that reached none runs the reference's code alone: its verdict is the reference's."""
    replaced = _replaced_methods(mutant)
    if replaced is None:
        return None
    agent = {s.id for s in scenarios if s.check == "agent"}
    return {row for row in reference if row[0] in agent or REACHED.get(row, set()) & replaced}


@pytest.fixture(scope="module")
def reference(scenarios: list[Scenario]) -> dict[Row, ScenarioResult]:
    runtime = _recording(ReferenceRuntime())
    results = _results(runtime, scenarios)
    REACHED.update(runtime.touched.by_row)  # type: ignore[attr-defined]
    return results


def test_the_reference_is_green(reference: dict[Row, ScenarioResult], scenarios: list[Scenario]) -> None:
    assert {r.verdict for r in reference.values()} <= {"pass", "unsupported", "missing"}
    # each scenario it passed reached one of its methods on some column (a store row's session is
    # made once per run, on its first column), as the mutants' runs rely on (`_reaching`)
    agent = {s.id for s in scenarios if s.check == "agent"}
    passed = {row[0] for row, r in reference.items() if r.verdict == "pass"} - agent
    assert passed - {row[0] for row in REACHED} == set()


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
