"""A runtime that declares its providers is handed off transcripts from those providers only: a
provider it does not support gives it nothing to decode (and no error for asking it to)."""

from __future__ import annotations

from pathlib import Path

from conformance.harness import HarnessContext
from conformance.harness.checks.handoff import handoff_transcripts
from conformance.runtime.protocol import Declaration
from conformance.runtime.reference import ReferenceRuntime

ROOT = Path(__file__).resolve().parents[2]


def test_handoff_sources_are_the_declared_providers() -> None:
    declared = Declaration(name="two", providers=frozenset({"openai", "anthropic"}))
    ctx = HarnessContext(root=ROOT, runtime=ReferenceRuntime(), declared=declared)
    labels = [label for label, _ in handoff_transcripts(ctx, "openai")]
    assert labels
    assert {label.split(":")[0] for label in labels} == {"anthropic"}
