"""The `agent` rows (seed 000: a cancelled streamed turn, abort, tool timeout, sequential execution,
spawn depth, client-side defaults; seed 004: a cancel that really stops the loop): each turns red
under an agent with one realistic bug, and only its own row among the agent rows (an agent running
calls together also starts a call after the user cancelled; a tool left running leaks from both the
timeout and the abort; a cancel that returns at once leaks from the stream and the abort), while the reference stays green. The leaks are seen only once the held
answers settle: judged at the step's return, each leaking mutant would pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.harness import HarnessContext, run_all
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness.agent_mutants import AgentMutant

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = ["openai", "anthropic", "gemini", "ollama", "openai_responses"]
"""One column per dialect: the mutants that wait out a 2 s tool cost that much per column."""


@pytest.fixture(scope="module")
def agent_rows() -> list[Scenario]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.check == "agent"]


def _verdicts(runtime: Any, rows: list[Scenario]) -> dict[tuple[str, str], str]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(runtime.name))
    return {(r.scenario, r.provider): r.verdict for r in run_all(rows, COLUMNS, ctx, jobs=1)}


MUTANTS: dict[str, set[str]] = {
    "cancel_between_steps": {"agent_cancel_stream"},
    "keeps_half_calls": {"agent_cancel_stream"},
    "abort_skips_tools": {"agent_abort_tool"},
    "no_tool_timeout": {"agent_tool_timeout"},
    # calls run together: the second call of the abort row starts too, after the user cancelled
    "concurrent": {"agent_sequential_tools", "agent_abort_tool"},
    "ignores_depth": {"agent_spawn_depth"},
    "no_client_defaults": {"agent_client_defaults"},
    "tool_left_running": {"agent_tool_timeout", "agent_abort_tool"},
    "fire_and_forget_cancel": {"agent_cancel_stream", "agent_abort_tool"},
    "refuses_all_spawn": {"agent_spawn_within_limit"},
    "depth_ge": {"agent_spawn_within_limit", "agent_tools_at_depth_limit"},
    "tool_as_level": {"agent_tools_at_depth_limit"},
}


@pytest.mark.parametrize("runtime", [ReferenceRuntime(), AgentMutant()], ids=["reference", "no-bug"])
def test_the_reference_passes_every_agent_row(runtime: Any, agent_rows: list[Scenario]) -> None:
    verdicts = _verdicts(runtime, agent_rows)
    assert {s for s, _ in verdicts} == {
        "agent_cancel_stream",
        "agent_abort_tool",
        "agent_tool_timeout",
        "agent_sequential_tools",
        "agent_spawn_depth",
        "agent_spawn_within_limit",
        "agent_tools_at_depth_limit",
        "agent_client_defaults",
    }
    assert set(verdicts.values()) == {"pass"}, verdicts


@pytest.mark.parametrize("bug", list(MUTANTS))
def test_each_agent_mutant_turns_exactly_its_row_red(bug: str, agent_rows: list[Scenario]) -> None:
    verdicts = _verdicts(AgentMutant(bug), agent_rows)
    red = {s for (s, _), v in verdicts.items() if v != "pass"}
    assert red == MUTANTS[bug], verdicts
    assert {v for (s, _), v in verdicts.items() if s in red} <= {"fail", "pass"}
