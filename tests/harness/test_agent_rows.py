"""The `agent` rows (seed 000: a cancelled streamed turn, abort, tool timeout, sequential execution,
spawn depth, client-side defaults; seed 004: a cancel that really stops the loop): each turns red
under an agent with one realistic bug, and only its own row among the agent rows (an agent running
calls together also starts a call after the user cancelled; a tool left running leaks from both the
timeout and the abort; a cancel that returns at once leaks from the stream and the abort), while the reference stays green. The leaks are seen only once the held
answers settle: judged at the step's return, each leaking mutant would pass."""

from __future__ import annotations

import copy
import dataclasses
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conformance.harness import HarnessContext, agent_host, run_check
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness.agent_mutants import AgentMutant

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = ["openai", "anthropic", "gemini", "ollama", "openai_responses"]
"""One column per dialect, run side by side (`_verdicts`)."""


LONG_S = 0.6
"""The rows' long waits for the mutants: the rest of a cancelled stream (`agent_host.PAUSE_S`, 2 s)
and a tool the runtime must stop (`hold_s: 2`). A leak shows once its held answer settles, whatever
the wait, so a mutant is judged alike in less time; the runtime's tool timeout (0.2 s) and the short
tool holds (0.1 s) stay as written, well under it. The reference is judged on the rows as shipped."""


@pytest.fixture(scope="module")
def agent_rows() -> list[Scenario]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.check == "agent"]


def _shortened(row: Scenario) -> Scenario:
    given = copy.deepcopy(row.spec.input)
    for tool in given.get("harness", {}).get("tools", []):
        if float(tool.get("hold_s", 0)) > LONG_S:
            tool["hold_s"] = LONG_S
    return dataclasses.replace(row, spec=row.spec.model_copy(update={"input": given}))


@pytest.fixture
def quick_agent_rows(agent_rows: list[Scenario], monkeypatch: pytest.MonkeyPatch) -> list[Scenario]:
    monkeypatch.setattr(agent_host, "PAUSE_S", LONG_S)
    return [_shortened(row) for row in agent_rows]


def _verdicts(runtime: Any, rows: list[Scenario]) -> dict[tuple[str, str], str]:
    """Every row on every column; the columns side by side, each a thread of its own (a row's time is
    spent waiting on the harness's held answers), its rows one after the other as in a run."""

    def column(provider: str) -> list[tuple[str, str, str]]:
        ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(runtime.name))
        checked = (run_check(row, provider, ctx) for row in rows if row.applies(provider))
        return [(r.scenario, r.provider, r.verdict) for r in checked]

    with ThreadPoolExecutor(len(COLUMNS)) as pool:
        return {(s, p): v for done in pool.map(column, COLUMNS) for s, p, v in done}


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
def test_each_agent_mutant_turns_exactly_its_row_red(bug: str, quick_agent_rows: list[Scenario]) -> None:
    verdicts = _verdicts(AgentMutant(bug), quick_agent_rows)
    red = {s for (s, _), v in verdicts.items() if v != "pass"}
    assert red == MUTANTS[bug], verdicts
    assert {v for (s, _), v in verdicts.items() if s in red} <= {"fail", "pass"}
