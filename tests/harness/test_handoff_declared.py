"""A runtime that declares its providers is handed off transcripts from those providers only: a
provider it does not support gives it nothing to decode (and no error for asking it to). A response
it cannot decode hands nothing off either: the handoff row names it and judges the rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.harness import HarnessContext, run_all
from conformance.harness.checks.handoff import handoff_transcripts
from conformance.runtime.protocol import Declaration
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]


def test_handoff_sources_are_the_declared_providers() -> None:
    declared = Declaration(name="two", providers=frozenset({"openai", "anthropic"}))
    ctx = HarnessContext(root=ROOT, runtime=ReferenceRuntime(), declared=declared)
    labels = [label for label, _ in handoff_transcripts(ctx, "openai")]
    assert labels
    assert {label.split(":")[0] for label in labels} == {"anthropic"}


class _CrashesOnNumericEnums(ReferenceRuntime):
    """Decodes as the reference does, but raises on a Gemini answer whose enums are proto numbers."""

    def decode(self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool) -> Any:
        if b'"finishReason": 1' in b"".join(chunks) or b'"finishReason":1' in b"".join(chunks):
            raise AttributeError("'int' object has no attribute 'upper'")
        return super().decode(provider, status, headers, chunks, stream)


def _handoff(runtime: object, provider: str) -> Any:
    scenarios = [s for s in load_scenarios(ROOT / "scenarios") if s.id == "handoff_all_providers"]
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name="crashing")
    (result,) = run_all(scenarios, [provider], ctx)
    return result


def test_a_response_the_runtime_cannot_decode_is_left_out_and_named() -> None:
    got = _handoff(_CrashesOnNumericEnums(), "openai")
    assert got.verdict == "pass", got.reason
    assert "could not decode are left out" in got.reason and "gemini:gemini_numeric_enums" in got.reason
    assert "left out" not in _handoff(ReferenceRuntime(), "openai").reason
