"""A program is told the model a caller names: the scenario's, else the provider's usual one."""

from __future__ import annotations

import sys
from pathlib import Path

from conformance.capabilities import get_profile
from conformance.runtime.process import ProcessRuntime

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
