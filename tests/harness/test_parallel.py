"""`run --jobs N`: checks in forked workers give the results of a run in one process, in order."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from conformance.exceptions import WorkerCrashedError
from conformance.harness import HarnessContext, run_all
from conformance.harness.parallel import _batches, can_fork
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
PROVIDERS = ["openai", "anthropic", "gemini"]
IDS = ["text_basic", "tool_call_stream", "repair_missing_tool_result", "handoff_all_providers", "retry_429_retry_after"]

needs_fork = pytest.mark.skipif(not can_fork(), reason="workers are forked, and this platform does not fork")


def _scenarios() -> list[Any]:
    return load_scenarios(ROOT / "scenarios", only=IDS)


@needs_fork
def test_workers_give_the_same_results_in_the_same_order() -> None:
    scenarios = _scenarios()
    one = run_all(scenarios, PROVIDERS, HarnessContext(root=ROOT, runtime=ReferenceRuntime()))
    seen: list[str] = []
    two = run_all(
        scenarios,
        PROVIDERS,
        HarnessContext(root=ROOT, runtime=ReferenceRuntime()),
        jobs=2,
        on_result=lambda r: seen.append(f"{r.scenario}[{r.provider}]"),
    )
    assert [r.model_dump() for r in two] == [r.model_dump() for r in one]
    assert sorted(seen) == sorted(f"{r.scenario}[{r.provider}]" for r in one)
    assert {r.verdict for r in one} <= {"pass", "unsupported"}, [r.reason for r in one if r.verdict == "fail"]


def test_whole_corpus_rows_are_one_task_handed_out_first() -> None:
    pairs = [(s, p) for s in _scenarios() for p in PROVIDERS]
    first, *rest = _batches(pairs)
    assert [pairs[i][0].id for i in first] == ["handoff_all_providers"] * len(PROVIDERS)
    assert all(pairs[i][0].check != "handoff" for batch in rest for i in batch)
    assert sorted(i for batch in _batches(pairs) for i in batch) == list(range(len(pairs)))


class _DiesInDecode(ReferenceRuntime):
    def decode(self, *args: Any, **kwargs: Any) -> Any:
        os._exit(3)  # a crash in native code: the worker is gone without a word


@needs_fork
def test_a_worker_that_dies_is_a_typed_error() -> None:
    scenarios = load_scenarios(ROOT / "scenarios", only=["text_basic"])
    with pytest.raises(WorkerCrashedError, match="--jobs 1"):
        run_all(scenarios, PROVIDERS, HarnessContext(root=ROOT, runtime=_DiesInDecode()), jobs=2)
