"""An `encode` that refuses (`{"refused": reason}`) is judged against what the provider does: a refusal of a
request the provider accepts is `not_offered` (a limitation), never a crash; where the provider refuses it too,
the reading of its answer is still judged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.harness.context import HarnessContext
from conformance.harness.run import run_all
from conformance.runtime.protocol import refusal_of
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]


class _Refusing(ReferenceRuntime):
    name = "refusing"

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        return {"refused": "thinking is not supported for this model"}


def _verdicts(ids: set[str]) -> dict[str, tuple[str, str]]:
    rows = [s for s in load_scenarios(ROOT / "scenarios") if s.id in ids]
    ctx = HarnessContext(root=ROOT, runtime=_Refusing(), runtime_name="refusing")
    return {r.scenario: (r.verdict, r.reason) for r in run_all(rows, ["openai"], ctx)}


def test_a_refusal_of_a_request_the_provider_accepts_is_not_offered_and_one_it_rejects_is_still_decoded() -> None:
    got = _verdicts({"text_basic", "error_invalid_request"})
    verdict, reason = got["text_basic"]
    assert verdict == "not_offered"
    assert "refuses a request openai accepts" in reason
    assert "thinking is not supported for this model" in reason
    assert got["error_invalid_request"][0] == "pass"  # the provider's 400 is still read as the reference does


def test_a_refusal_is_only_the_refused_object() -> None:
    assert refusal_of({"refused": "no"}) == "no"
    assert refusal_of({"refused": "no", "model": "x"}) is None
    assert refusal_of({"model": "x"}) is None
