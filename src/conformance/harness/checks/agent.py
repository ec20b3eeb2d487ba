"""The `agent` check: one agent step of the runtime under test, with tools and a user the harness controls.

Black box, through the runtime's `agent` capability (`runtime.protocol.AgentRequest`): the runtime
sends the scenario's conversation (answered from the cassette), runs the tool calls of the answer
against the harness's tools (`harness.agent_host`), and returns what the step adds to the history.
The scenario's `input.harness` is the harness's side, never handed to the runtime: `tools` (per
call, by arrival: `hold_s`, how long the tool takes; `cancel`, the user cancels as it starts) and
`cancel_stream_at` (the user cancels once that fraction of the streamed answer has arrived).

What is judged, each only where `expected` names it:

- `status`: the step's typed outcome (`done`, `aborted`, `error`);
- `stream_stopped`: after a cancel mid-stream, whether the runtime stopped reading: it closed the
  answer before the rest came, and sent no request after the cancel;
- `tools`: the calls that reached the harness's tools, in order (`name`, `arguments`, and `stopped`:
  the runtime closed the call before the tool answered);
- `sequential`: each call started only once the one before it had ended;
- `results`: per tool call of the history, in order, whether its result is an error;
- `history`: what is inconsistent in the messages added (a tool call without exactly one result
  after it, a result without its call, a tool call that is not one the model completed — half its
  arguments — as listed in `expected.calls`); empty when consistent.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from conformance.capabilities import get_profile
from conformance.compare import ScenarioResult
from conformance.exceptions import ScenarioError
from conformance.harness.agent_host import TOOL_PATH, AgentHost, ToolScript
from conformance.harness.checks.retry import replay_keys
from conformance.harness.context import HarnessContext, judge, mismatch_failure, requires, result
from conformance.model.parse import parse_conversation
from conformance.replay.cassette import cassette_evidence, load_cassette
from conformance.replay.player import CassetteTransport, ReplayMismatch
from conformance.runtime.protocol import AgentRequest, CancelSignal
from conformance.scenarios import Scenario

JUDGED = ("status", "stream_stopped", "tools", "sequential", "results", "history")
"""The observations an `expected` may name (`calls` is not one: it is what `history` is read against)."""


def history_problems(messages: Any, calls: list[dict[str, Any]]) -> list[str]:
    """What makes the added messages an inconsistent history (empty: consistent)."""
    if not isinstance(messages, list):
        return ["messages is not a list"]
    problems: list[str] = []
    open_calls: dict[str, int] = {}
    answered: set[str] = set()
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            problems.append(f"messages[{i}] is not an object")
            continue
        role = msg.get("role")
        if role == "assistant":
            for k, block in enumerate(msg.get("content") or []):
                if not isinstance(block, dict) or block.get("type") != "tool_call":
                    continue
                whole = {"name": block.get("name"), "arguments": block.get("arguments")}
                if block.get("raw_arguments") is not None or whole not in calls:
                    problems.append(f"messages[{i}].content[{k}] is a tool call the model did not complete: {whole}")
                open_calls[str(block.get("id"))] = i
        elif role == "tool_result":
            ident = str(msg.get("tool_call_id"))
            if ident not in open_calls:
                problems.append(f"messages[{i}] answers no tool call before it ({ident})")
            elif ident in answered:
                problems.append(f"messages[{i}] answers {ident} a second time")
            answered.add(ident)
    problems += [f"tool call {ident} has no result" for ident in open_calls if ident not in answered]
    return problems


def _results(messages: Any) -> list[dict[str, Any]]:
    if not isinstance(messages, list):
        return []
    by_id = {
        str(m.get("tool_call_id")): bool(m.get("is_error", False))
        for m in messages
        if isinstance(m, dict) and m.get("role") == "tool_result"
    }
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, dict) and m.get("role") == "assistant":
            for block in m.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_call":
                    out.append({"is_error": by_id.get(str(block.get("id")))})
    return out


def _sequential(host: AgentHost) -> bool:
    for before, after in zip(host.calls, host.calls[1:], strict=False):
        end = before.held.ended_at
        if end is None or after.started < end:
            return False
    return True


def observe(answer: Any, host: AgentHost, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything an `agent` row may judge, from the runtime's answer and what the harness saw
    (read once the held answers have settled: see `AgentHost.settle`)."""
    answer = answer if isinstance(answer, dict) else {}
    messages = answer.get("messages", [])
    stopped = bool(host.streams) and all(h.stopped for h in host.streams) and host.later_requests() == 0
    return {
        "status": answer.get("status"),
        "stream_stopped": stopped,
        "tools": [{"name": c.name, "arguments": c.arguments, "stopped": c.held.stopped} for c in host.calls],
        "sequential": _sequential(host),
        "results": _results(messages),
        "history": history_problems(messages, calls),
    }


def check_agent(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    skipped = requires(ctx, scenario, provider, "agent")
    if skipped is not None:
        return skipped
    cassette = scenario.cassette_path(provider, ctx.root)
    if not cassette.is_file():
        return result(scenario, provider, "missing", f"no cassette at {ctx.rel(cassette)}")
    raw = dict(scenario.expected_for(provider) or {})
    unknown = sorted(set(raw) - {*JUDGED, "calls"})
    if unknown:
        known = ", ".join((*JUDGED, "calls"))
        raise ScenarioError(f"expected: unknown keys {unknown} (known: {known})", where=str(scenario.path))
    calls = list(raw.get("calls", []))
    expected = {k: raw[k] for k in JUDGED if k in raw}
    harness = dict(scenario.spec.input.get("harness", {}))
    transport = CassetteTransport(load_cassette(cassette))
    evidence = cassette_evidence(transport.cassette.meta)
    cancel = CancelSignal()
    at = harness.get("cancel_stream_at")
    host = AgentHost(
        transport,
        cancel,
        tools=[ToolScript.of(t) for t in harness.get("tools", [])],
        cancel_stream_at=None if at is None else float(at),
    )
    conversation = scenario.conversation(provider)
    parse_conversation(conversation, where=f"{scenario.path}: input")
    base_url = get_profile(provider).base_url
    parts = urlsplit(base_url)
    request = AgentRequest(
        provider=provider,
        conversation=conversation,
        transport=host,
        base_url=base_url,
        keys=replay_keys(1),
        tool_url=f"{parts.scheme}://{parts.netloc}{TOOL_PATH}",
        cancel=cancel,
        settings=dict(scenario.spec.input.get("runtime", {})),
    )
    rel = ctx.rel(cassette)
    try:
        answer = ctx.runtime.agent_turn(request)
        transport.raise_mismatch()  # the library may have replaced the exception with one of its own
    except ReplayMismatch as exc:
        return mismatch_failure(scenario, provider, exc, cassette=rel, evidence=evidence, expected=expected)
    host.settle()
    observed = observe(answer, host, calls)
    actual = {k: observed[k] for k in expected}
    return judge(scenario, provider, expected, actual, ctx=ctx, cassette=rel, evidence=evidence)


__all__ = ["JUDGED", "check_agent", "history_problems", "observe"]
