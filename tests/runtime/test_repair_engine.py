"""The engine: purity, output shape, determinism and idempotence on hand-written cases."""

from __future__ import annotations

from conformance.capabilities import get_profile
from conformance.model import Message, ProviderError
from conformance.runtime.repair import RULES, Action, repair
from tests.runtime.builders import assistant, call, dumped, result, run, system, thinking, user

MESSY: list[Message] = [
    system("s"),
    assistant("early"),
    result("ghost"),
    user("q", ""),
    assistant("a", call("c.1"), thinking(), provider="anthropic", model="claude-sonnet-4-5"),
    result("c.1"),
    result("c.1", "dup"),
    user("q2"),
    user("q3"),
    assistant("half", stop_reason="error", error=ProviderError(kind="server")),
    assistant(call("c.1")),
    assistant("end"),
]


def test_input_is_not_mutated() -> None:
    before = dumped(MESSY)
    run(MESSY, "anthropic")
    assert dumped(MESSY) == before


def test_output_shape_matches_the_contract() -> None:
    out = run(MESSY, "anthropic").to_json()
    assert set(out) == {"messages", "actions", "warnings"}
    assert all(set(a) == {"rule", "index", "detail"} for a in out["actions"])
    assert Action("r", 1, "d").to_json() == {"rule": "r", "index": 1, "detail": "d"}


def test_idempotent_and_deterministic_for_every_profile() -> None:
    for name in ("openai", "anthropic", "gemini", "ollama", "mistral", "deepseek"):
        profile = get_profile(name)
        once = repair(MESSY, profile)
        assert dumped(repair(MESSY, profile).messages) == dumped(once.messages)
        again = repair(once.messages, profile)
        assert dumped(again.messages) == dumped(once.messages)
        assert again.actions == []


def test_every_rule_is_named() -> None:
    assert len({rule.__name__ for rule in RULES}) == len(RULES)
