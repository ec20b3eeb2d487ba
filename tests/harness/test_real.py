"""Real traffic as judged results: every generation call of the shipped corpus, decoded by the
runtime under test (`harness.real`). The reference passes every one; mutants turn cells red."""

from __future__ import annotations

import copy
import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.capabilities import matrix_providers
from conformance.compare import ScenarioResult
from conformance.evidence.expected import ExpectedCall, bundled_corpus
from conformance.harness import build_matrix
from conformance.harness.context import HarnessContext
from conformance.harness.real import cases, column_cases, from_json, judge_all, judge_call, tally, to_json
from conformance.runtime.protocol import Declaration
from conformance.runtime.reference import ReferenceRuntime
from tests.harness.mutants import OnlyDecodes, TracksCallsByIndex

ROOT = Path(__file__).resolve().parents[2]
MIN_CALLS = 1450
"""Generation calls of the shipped corpus judged today (1,459, 2026-11); fewer fails."""
MIN_COLUMNS = 20
"""Matrix columns (of 20) with real calls today: all of them (fireworks: 2 calls)."""


class DropsUsage(ReferenceRuntime):
    """Decodes, then forgets the token counts."""

    name = "mutant-drops-usage"

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        out = copy.deepcopy(super().decode(provider, status, headers, chunks, stream))
        for key in ("message", "partial"):
            if isinstance(out.get(key), dict):
                out[key]["usage"] = None
        return out


class CrashesOnAnthropic(ReferenceRuntime):
    name = "mutant-crashes"

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        if provider == "anthropic":
            raise KeyError("content_block")
        return super().decode(provider, status, headers, chunks, stream)


class NoDecode:
    name = "no-decode"

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        return {}


def _ctx(runtime: Any, declared: Declaration | None = None) -> HarnessContext:
    return HarnessContext(root=ROOT, runtime=runtime, runtime_name=getattr(runtime, "name", "x"), declared=declared)


def _verdicts(runtime: Any, providers: list[str] | None = None) -> Counter[str]:
    return Counter(r.verdict for r in judge_all(_ctx(runtime), providers or matrix_providers()))


def test_the_reference_passes_every_real_call() -> None:
    results = judge_all(_ctx(ReferenceRuntime()), matrix_providers())
    bad = [f"{r.case.call.where}: {r.reason}" for r in results if r.verdict != "pass"]
    assert not bad, "\n".join(bad[:10])
    assert len(results) >= MIN_CALLS
    per_column = Counter(r.case.column for r in results)
    print({c: per_column[c] for c in sorted(per_column)})
    assert len([p for p in matrix_providers() if per_column[p]]) >= MIN_COLUMNS


def test_a_runtime_that_drops_usage_fails_real_calls_in_the_usage_cells() -> None:
    ctx = _ctx(DropsUsage())
    results = judge_all(ctx, matrix_providers())
    cells, columns = tally(results, matrix_providers(), ctx)
    assert cells[("openai", "usage")].traffic.red == "fail"
    assert cells[("anthropic", "usage")].traffic.red == "fail"
    failing = cells[("openai", "usage")].traffic.failing[0]
    assert any(e.path == "message.usage" for e in failing.diff), failing
    assert failing.source.startswith("https://github.com/") and failing.license
    assert next(c for c in columns if c.provider == "openai").traffic.red == "fail"


def test_a_runtime_that_tracks_streamed_calls_by_index_fails_real_parallel_calls() -> None:
    """Gemini streams parallel calls in chunks that all say `"index": 0` (the candidate's index)."""
    results = judge_all(_ctx(TracksCallsByIndex()), ["gemini"])
    failed = [r for r in results if r.verdict == "fail"]
    assert failed and all("parallel_tool_calls" in r.case.features for r in failed)


def test_a_crash_is_an_error_with_the_exception() -> None:
    results = judge_all(_ctx(CrashesOnAnthropic()), ["anthropic"])
    assert {r.verdict for r in results} == {"error"}
    assert results[0].reason == "KeyError: 'content_block'"


def test_without_decode_every_call_is_skipped() -> None:
    assert set(_verdicts(NoDecode(), ["openai"])) == {"skipped"}


def test_a_declared_column_and_feature_are_respected() -> None:
    declared = Declaration(name="one", providers=frozenset({"openai"}), not_offered=frozenset({"usage"}))
    ctx = _ctx(DropsUsage(), declared)
    results = judge_all(ctx, ["openai", "anthropic"])
    assert {r.verdict for r in results if r.case.column == "anthropic"} == {"not_offered"}
    cells, _ = tally(results, ["openai", "anthropic"], ctx)
    usage = cells[("openai", "usage")].traffic
    assert usage.counts.get("not_offered") and not usage.counts.get("fail")
    assert cells[("openai", "text")].traffic.red == "fail"  # the same calls, judged whole, fail in text


def test_an_unreviewed_or_unwritten_form_is_never_judged() -> None:
    case = column_cases("openai")[0]
    assert case.expected is not None
    disagree = ExpectedCall(index=case.call.index, sdk="disagree: ours != SDK", outcome={"message": None})
    for changed in (dataclasses.replace(case, expected=disagree), dataclasses.replace(case, expected=None)):
        res = judge_call(changed, _ctx(ReferenceRuntime()))
        assert res.verdict == "unverified", res


def test_results_travel_as_json() -> None:
    results = judge_all(_ctx(DropsUsage()), ["xai"])
    back = from_json([to_json(r) for r in results])
    assert [(r.case, r.verdict, r.diff) for r in back] == [(r.case, r.verdict, r.diff) for r in results]


def _result(provider: str, feature: str) -> ScenarioResult:
    return ScenarioResult(scenario="s", title="s", feature=feature, check="decode", provider=provider, verdict="pass")


def test_the_matrix_counts_real_traffic_per_cell_and_column() -> None:
    providers = ["openai", "fireworks"]
    ctx = _ctx(DropsUsage())
    results = [_result("openai", "usage"), _result("openai", "text"), _result("fireworks", "text")]
    # fireworks' real calls left out: a column of the run without any real call is authored only
    real = [r for r in judge_all(ctx, providers) if r.case.column != "fireworks"]
    matrix = build_matrix(results, providers, ctx, scenario_dir=ROOT / "scenarios", real=real)
    usage = matrix.cell("openai", "usage")
    assert usage is not None and usage.verdict == "fail" and usage.counts == {"pass": 1}
    assert usage.real is not None and usage.real.traffic is not None and usage.real.traffic.failing
    fireworks = matrix.cell("fireworks", "text")
    assert fireworks is not None and fireworks.verdict == "pass"
    assert fireworks.real is None or fireworks.real.traffic is None  # backed by recordings, no call judged
    columns = {c.provider: c for c in matrix.real_traffic or []}
    assert columns["fireworks"].authored_only and not columns["openai"].authored_only
    assert matrix.failed()
    totals = matrix.real_totals()
    assert totals is not None and totals.calls == len(column_cases("openai"))


def test_without_real_traffic_the_matrix_says_so() -> None:
    ctx = _ctx(ReferenceRuntime())
    matrix = build_matrix([_result("openai", "text")], ["openai"], ctx, scenario_dir=ROOT / "scenarios")
    assert matrix.real_traffic is None and matrix.real_totals() is None
    cell = matrix.cell("openai", "text")
    assert cell is not None and cell.real is not None and cell.real.traffic is None


def test_the_corpus_is_read_once() -> None:
    assert cases() is cases() is cases(None) is cases(bundled_corpus())


@pytest.mark.parametrize("providers", [["openai"], matrix_providers()])
def test_generic_columns_are_judged_when_the_run_covers_every_column(providers: list[str]) -> None:
    judged = {r.case.column for r in judge_all(_ctx(OnlyDecodes()), providers)}
    assert ("openai-compatible" in judged) == (len(providers) > 1)


def test_a_runtime_in_another_process_is_judged_the_same() -> None:
    """The calls go over the JSON-lines protocol (`--runtime-cmd`) and read as in process."""
    import sys

    from conformance.runtime.loading import load_runtime

    program = f"{sys.executable} {ROOT / 'tests' / 'runtime' / 'oop_reference.py'}"
    runtime, _ = load_runtime(None, command=program, timeout=60, start_timeout=120)
    try:
        results = judge_all(_ctx(runtime), ["anthropic", "xai"])
    finally:
        runtime.close()
    assert len(results) == len(column_cases("anthropic")) + len(column_cases("xai"))
    assert {r.verdict for r in results} == {"pass"}, [r.reason for r in results if r.verdict != "pass"][:3]


class PassesKeysThrough(ReferenceRuntime):
    """Hands an error message over as the provider sent it (the key it quotes unredacted)."""

    name = "keys-through"

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        out = super().decode(provider, status, headers, chunks, stream)
        if isinstance(out.get("error"), dict) and b"sk-fake-key" in b"".join(chunks):
            out["error"]["message"] = out["error"]["message"].replace("<redacted>", "sk-fake-key")
        return out


def test_an_error_message_quoting_a_key_reads_right_redacted_or_not() -> None:
    results = judge_all(_ctx(PassesKeysThrough()), ["openai"])
    quoting = [r for r in results if b"sk-fake-key" in r.case.call.body]
    assert quoting and {r.verdict for r in quoting} == {"pass"}
