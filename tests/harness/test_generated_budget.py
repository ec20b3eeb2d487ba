"""A failing hypothesis row is bounded: shrinking stops after `SHRINK_CALLS` property calls and says so."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from conformance.harness import HarnessContext, run_all
from conformance.harness.checks.generated import SHRINK_CALLS
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]


class OrphanOnLongTranscripts(ReferenceRuntime):
    """Repair appends a result for no call once a transcript has six messages: only long cases fail,
    so hypothesis has much to shrink."""

    name = "mutant-orphan-on-long-transcripts"

    def __init__(self) -> None:
        self.calls = 0

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self.calls += 1
        out = super().repair(messages, provider, model, options)
        if len(out["messages"]) >= 6:
            out["messages"] = [*out["messages"], {"role": "tool_result", "tool_call_id": "none", "content": "x"}]
        return out


def test_a_failing_generated_row_stops_shrinking_at_its_budget_and_reports_it() -> None:
    runtime = OrphanOnLongTranscripts()
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=runtime.name)
    row = [s for s in load_scenarios(ROOT / "scenarios") if s.id == "generated_repair"]
    res = run_all(row, ["openai"], ctx)[0]
    assert res.verdict == "fail"
    stopped = f"(shrinking stopped after {SHRINK_CALLS} property calls, its budget)"
    assert stopped in res.reason or re.search(
        rf"\(shrunk in \d+ property calls \(budget {SHRINK_CALLS}\)\)", res.reason
    ), res.reason[-300:]
    assert res.examples is not None
    # the property calls repair twice: the examples run, then at most the budget while shrinking
    assert runtime.calls <= 2 * (res.examples + SHRINK_CALLS)


class SeedsWhileRetrying(ReferenceRuntime):
    """A runtime in real time (as another process is) whose turns keep reseeding the global `random`,
    as the retry check and a library's jitter do, for a while: every millisecond, more often than a
    generated example takes to draw, so every draw that overlaps the turn sees the state change."""

    name = "seeds-while-retrying"
    real_time = True

    def turn(self, request: Any) -> Any:
        import random
        import time

        stop = time.monotonic() + 1.5
        while time.monotonic() < stop:
            random.seed(time.monotonic())
            time.sleep(0.001)
        return super().turn(request)


def test_a_threaded_run_draws_its_examples_before_rows_that_touch_random_start() -> None:
    """Hypothesis takes a change of the global `random` state during its draw for a misused strategy
    (an error under pytest): a threaded run draws before its threads start, so the generated row
    beside a retry row that reseeds `random` is judged, not a crash."""
    from conformance.harness.checks.generated import drawn_examples

    drawn_examples.cache_clear()  # this process may have drawn them already
    rows = {s.id: s for s in load_scenarios(ROOT / "scenarios")}
    runtime = SeedsWhileRetrying()
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=runtime.name, extras={"examples": 200})
    results = run_all([rows["retry_429_retry_after"], rows["generated_repair"]], ["openai"], ctx, jobs=2)
    verdicts = {r.scenario: (r.verdict, r.reason.splitlines()[0]) for r in results}
    assert verdicts["generated_repair"] == ("pass", "200 generated examples held the property")
