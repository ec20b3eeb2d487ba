"""A program is told the model a caller names (encode, turn, decode): the scenario's, else the provider's usual one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.harness import HarnessContext, run_check
from conformance.harness.checks.decode import check_decode
from conformance.runtime.process import ProcessRuntime
from conformance.runtime.protocol import decode_response
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]

ECHO = f"{sys.executable} {Path(__file__).with_name('echo_encoder.py')}"


def test_a_conversation_without_a_model_gets_the_providers_usual_one() -> None:
    proc = ProcessRuntime(ECHO, timeout=20)
    try:
        sent = proc.encode({"messages": []}, "anthropic")
        named = proc.encode({"messages": [], "model": "claude-opus-4-1"}, "anthropic")
    finally:
        proc.close()
    assert sent["conversation"]["model"] == get_profile("anthropic").default_model
    assert named["conversation"]["model"] == "claude-opus-4-1"


def test_decode_is_told_the_model_too() -> None:
    proc = ProcessRuntime(ECHO, timeout=20)
    try:
        usual = proc.decode("openai", 200, {}, [b"{}"], False)
        named = proc.decode("openai", 200, {}, [b"{}"], False, model="o1-mini")
    finally:
        proc.close()
    assert usual["model"] == get_profile("openai").default_model
    assert named["model"] == "o1-mini"
    assert {"provider", "status", "headers", "chunks", "stream"} <= set(named)  # the fields it had before


class _Seen:
    """Decodes as the reference does, and keeps the model it was told (if its decode takes one)."""

    name = "seen"

    def __init__(self) -> None:
        self.models: list[str | None] = []

    def decode(
        self,
        provider: str,
        status: int,
        headers: dict[str, str],
        chunks: list[bytes],
        stream: bool,
        *,
        model: str | None = None,
    ) -> dict[str, Any]:
        self.models.append(model)
        return ReferenceRuntime().decode(provider, status, headers, chunks, stream)


class _Forwards(ReferenceRuntime):
    """Passes its arguments on to a decode that takes no model: it must be called as before."""

    name = "forwards"

    def decode(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return super().decode(*args, **kwargs)


def _decode_row(runtime: object, scenario_id: str, provider: str) -> Any:
    scenario = next(s for s in load_scenarios(ROOT / "scenarios") if s.id == scenario_id)
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name="test")
    return check_decode(scenario, provider, ctx)


def test_the_decode_row_hands_over_the_scenarios_model() -> None:
    seen = _Seen()
    assert _decode_row(seen, "text_basic", "anthropic").verdict == "pass"
    assert seen.models == [get_profile("anthropic").default_model]
    assert _decode_row(_Forwards(), "text_basic", "anthropic").verdict == "pass"


def test_a_run_hands_the_model_over_through_the_harness_guard() -> None:
    """`run_check` puts the runtime behind the guard, which must keep `decode`'s keywords visible."""
    seen = _Seen()
    scenario = next(s for s in load_scenarios(ROOT / "scenarios") if s.id == "text_basic")
    ctx = HarnessContext(root=ROOT, runtime=seen, runtime_name="test")
    assert run_check(scenario, "anthropic", ctx).verdict == "pass"
    assert seen.models == [get_profile("anthropic").default_model]


def test_decode_response_passes_the_model_only_to_a_decode_that_names_it() -> None:
    seen = _Seen()
    decode_response(seen, "openai", 200, {}, [b"{}"], False, model="m-1")
    assert seen.models == ["m-1"]
    with pytest.raises(TypeError):
        ReferenceRuntime().decode("openai", 200, {}, [b"{}"], False, model="m-1")  # type: ignore[call-arg]
    decode_response(ReferenceRuntime(), "openai", 200, {}, [b"{}"], False, model="m-1")  # no TypeError
