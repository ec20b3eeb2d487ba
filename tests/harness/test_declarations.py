"""A runtime is judged on what it offers: providers, features and fields it declares it does not
offer are `not_offered` (a gap), never `fail`; a crash is typed with its traceback; a retry row
judges what the runtime did, not the final message's other fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, build_matrix, run_all
from conformance.runtime.protocol import Declaration, TurnRequest
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]


def _run(runtime: object, ids: set[str], providers: list[str]) -> dict[tuple[str, str], ScenarioResult]:
    scenarios = [s for s in load_scenarios(ROOT / "scenarios") if s.id in ids]
    assert {s.id for s in scenarios} == ids
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    return {(r.scenario, r.provider): r for r in run_all(scenarios, providers, ctx)}


class NoRawStopReason(ReferenceRuntime):
    """Decodes right but exposes no raw stop reason and no parsed retry hint (many libraries)."""

    name = "no-raw"

    def decode(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        out = super().decode(*args, **kwargs)
        for part in ("message", "partial"):
            if isinstance(out.get(part), dict):
                out[part].pop("raw_stop_reason", None)
        if isinstance(out.get("error"), dict):
            out["error"].pop("retry_after_s", None)
        return out


class DeclaredNoRaw(NoRawStopReason):
    name = "declared-no-raw"
    declaration = Declaration(
        name="declared-no-raw",
        providers=frozenset({"openai"}),
        not_offered=frozenset({"auth_rotation"}),
        exposed_fields=frozenset({"message.usage", "error.status", "error.provider_code", "error.message", "partial"}),
    )


def test_undeclared_fields_fail_as_missing_gaps() -> None:
    got = _run(NoRawStopReason(), {"text_basic"}, ["openai"])[("text_basic", "openai")]
    assert got.verdict == "fail" and got.fail_kind == "missing" and got.gap and not got.defect


def test_declared_runtime_is_judged_on_what_it_offers() -> None:
    ids = {"text_basic", "error_rate_limit", "retry_auth_rotation"}
    got = _run(DeclaredNoRaw(), ids, ["openai", "anthropic"])
    assert got[("text_basic", "openai")].verdict == "pass"  # raw_stop_reason is not what this row is about
    assert got[("error_rate_limit", "openai")].verdict == "not_offered"
    assert "error.retry_after_s" in got[("error_rate_limit", "openai")].reason
    assert got[("retry_auth_rotation", "openai")].verdict == "not_offered"
    assert {r.verdict for (_, p), r in got.items() if p == "anthropic"} <= {"not_offered", "unsupported"}


class Crashes(ReferenceRuntime):
    name = "crashes"

    def decode(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return self._inner_decode()

    def _inner_decode(self) -> dict[str, Any]:
        raise KeyError("choices")


def test_a_crash_is_typed_with_the_runtime_traceback() -> None:
    got = _run(Crashes(), {"text_basic"}, ["openai"])[("text_basic", "openai")]
    assert got.verdict == "error" and got.fail_kind == "crash" and got.defect
    assert got.traceback is not None and "_inner_decode" in got.traceback and "KeyError" in got.traceback


class OtherFinalText(ReferenceRuntime):
    """Retries right, then reports a different final text: not what a retry row is about."""

    name = "other-final-text"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        out = super().turn(request)
        if isinstance(out.get("message"), dict):
            out["message"]["content"] = [{"type": "text", "text": "something else"}]
        return out


class WrongErrorKind(ReferenceRuntime):
    name = "wrong-error-kind"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        out = super().turn(request)
        if isinstance(out.get("error"), dict):
            out["error"]["kind"] = "server"
        return out


@pytest.mark.parametrize("scenario", ["retry_429_retry_after", "overflow_nothing_to_compress"])
def test_retry_rows_judge_the_outcome_kind(scenario: str) -> None:
    assert _run(OtherFinalText(), {scenario}, ["openai"])[(scenario, "openai")].verdict == "pass"


def test_a_wrong_error_kind_fails_a_retry_row() -> None:
    got = _run(WrongErrorKind(), {"overflow_nothing_to_compress"}, ["openai"])[
        ("overflow_nothing_to_compress", "openai")
    ]
    assert got.verdict == "fail" and got.fail_kind == "wrong"
    assert [d.path for d in got.diff] == ["error.kind"]


def test_the_matrix_counts_defects_apart_from_gaps() -> None:
    runtime = DeclaredNoRaw()
    scenarios = [s for s in load_scenarios(ROOT / "scenarios") if s.id in {"text_basic", "error_rate_limit"}]
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=runtime.name)
    matrix = build_matrix(run_all(scenarios, ["openai"], ctx), ["openai"], ctx, scenario_dir=ROOT / "scenarios")
    assert matrix.gaps == {"missing": 0, "not_offered": 1}
    assert matrix.defects == {"wrong": 0, "extra": 0, "crash": 0}
    assert matrix.declaration is not None and matrix.declaration["name"] == "declared-no-raw"
