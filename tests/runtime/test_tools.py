"""Tool execution: order, timeouts that kill subprocesses, abort, depth limit, errors as results."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.model import Conversation, ToolCallBlock
from conformance.runtime.prepare import prepare
from conformance.runtime.tools import ToolContext, ToolRegistry, run_tool_calls


def call(name: str, i: int = 0, **args: Any) -> ToolCallBlock:
    return ToolCallBlock(id=f"c{i}", name=name, arguments=args)


async def test_calls_run_in_order_and_each_gets_a_result() -> None:
    order: list[str] = []
    reg = ToolRegistry()

    async def slow(args: dict[str, Any], ctx: ToolContext) -> str:
        await asyncio.sleep(0.02)
        order.append("slow")
        return "s"

    async def fast(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        order.append("fast")
        return {"ok": True}

    reg.register("slow", slow)
    reg.register("fast", fast)
    results = await run_tool_calls([call("slow", 0), call("fast", 1), call("nope", 2)], reg)
    assert order == ["slow", "fast"]
    assert [(r.tool_call_id, r.is_error) for r in results] == [("c0", False), ("c1", False), ("c2", True)]
    assert results[1].content[0].text == '{"ok": true}'  # type: ignore[union-attr]
    assert "unknown tool 'nope'" in results[2].content[0].text  # type: ignore[union-attr]


async def test_timeout_kills_a_subprocess_tool() -> None:
    reg = ToolRegistry()
    reg.register_command("sleep", lambda a: [sys.executable, "-c", "import time; time.sleep(30)"], timeout_s=0.3)
    start = time.monotonic()
    (result,) = await run_tool_calls([call("sleep")], reg)
    assert time.monotonic() - start < 5
    assert result.is_error and "timed out after 0.3s" in result.content[0].text  # type: ignore[union-attr]


async def test_abort_stops_the_running_tool_and_the_rest() -> None:
    reg = ToolRegistry()
    abort = asyncio.Event()

    async def forever(args: dict[str, Any], ctx: ToolContext) -> str:
        abort.set()
        await asyncio.sleep(30)
        return "never"

    reg.register("forever", forever)
    results = await run_tool_calls([call("forever", 0), call("forever", 1)], reg, abort=abort)
    assert [r.is_error for r in results] == [True, True]
    assert "aborted" in results[0].content[0].text  # type: ignore[union-attr]
    assert "not run: aborted" in results[1].content[0].text  # type: ignore[union-attr]


async def test_sub_agent_depth_limit_and_tool_errors() -> None:
    reg = ToolRegistry()

    async def agent(args: dict[str, Any], ctx: ToolContext) -> str:
        return f"depth {ctx.depth}"

    async def broken(args: dict[str, Any], ctx: ToolContext) -> str:
        raise ValueError("disk full")

    reg.register("agent", agent, spawns_agent=True)
    reg.register("broken", broken)
    ok = await run_tool_calls([call("agent")], reg, depth=1, max_depth=2)
    assert ok[0].content[0].text == "depth 2"  # type: ignore[union-attr]
    refused = await run_tool_calls([call("agent")], reg, depth=2, max_depth=2)
    assert "refused: sub-agent depth 3 exceeds the limit of 2" in refused[0].content[0].text  # type: ignore[union-attr]
    (err,) = await run_tool_calls([call("broken")], reg)
    assert err.is_error and err.content[0].text == "ValueError: disk full"  # type: ignore[union-attr]


async def test_schema_defaults_are_applied_before_the_tool_runs() -> None:
    conv = Conversation.model_validate(
        {
            "messages": [{"role": "user", "content": "book"}],
            "tools": [
                {
                    "name": "book",
                    "parameters": {
                        "type": "object",
                        "properties": {"seating": {"type": "string", "default": "indoor"}, "size": {"type": "integer"}},
                    },
                }
            ],
        }
    )
    prepared = prepare(conv, get_profile("gemini"))
    assert "default" not in prepared.conversation.tools[0].parameters["properties"]["seating"]
    seen: list[dict[str, Any]] = []

    async def book(args: dict[str, Any], ctx: ToolContext) -> str:
        seen.append(args)
        return "booked"

    reg = ToolRegistry()
    reg.register("book", book)
    await run_tool_calls([call("book", size=2)], reg, prepared=prepared)
    assert seen == [{"size": 2, "seating": "indoor"}]


def process_gone(pid: int) -> bool:
    """Dead, or a zombie waiting for a parent that no longer runs it."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def sleeper(tmp_path: Any, timeout_s: float) -> tuple[ToolRegistry, Any]:
    """A shell tool whose `sleep` grandchild writes its pid: killing only the shell would leave it."""
    pidfile = tmp_path / "sleep.pid"
    reg = ToolRegistry()
    reg.register_command("sleep", lambda a: ["sh", "-c", f"sleep 30 & echo $! > {pidfile}; wait"], timeout_s=timeout_s)
    return reg, pidfile


async def test_timeout_kills_the_whole_process_group_of_a_real_sleep(tmp_path: Any) -> None:
    reg, pidfile = sleeper(tmp_path, 0.3)
    start = time.monotonic()
    (result,) = await run_tool_calls([call("sleep")], reg)
    assert time.monotonic() - start < 1.0
    assert result.is_error and result.content[0].text == "sleep timed out after 0.3s"  # type: ignore[union-attr]
    assert process_gone(int(pidfile.read_text()))


async def test_cancelling_the_caller_kills_the_tool_too(tmp_path: Any) -> None:
    reg, pidfile = sleeper(tmp_path, 30.0)
    task = asyncio.ensure_future(run_tool_calls([call("sleep")], reg))
    for _ in range(1000):  # until the grandchild runs (the tool's 30 s are never waited for)
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=5.0)
    assert process_gone(int(pidfile.read_text()))


async def test_cancelling_the_caller_while_the_tool_starts_kills_it_too(tmp_path: Any) -> None:
    reg, pidfile = sleeper(tmp_path, 30.0)
    task = asyncio.ensure_future(run_tool_calls([call("sleep")], reg))
    await asyncio.sleep(0)  # the tool is being started: no process group to kill yet
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=5.0)
    if pidfile.exists() and pidfile.read_text().strip():  # the shell got as far as starting its child
        assert process_gone(int(pidfile.read_text()))


async def test_concurrent_calls_run_together_and_answer_in_order() -> None:
    reg = ToolRegistry()

    async def nap(args: dict[str, Any], ctx: ToolContext) -> str:
        await asyncio.sleep(args["s"])
        return f"slept {args['s']}"

    reg.register("nap", nap)
    calls = [call("nap", 0, s=0.2), call("nap", 1, s=0.1), call("nap", 2, s=0.2)]
    start = time.monotonic()
    results = await run_tool_calls(calls, reg, concurrent=True)
    assert time.monotonic() - start < 0.45
    assert [r.tool_call_id for r in results] == ["c0", "c1", "c2"]
    assert [r.content[0].text for r in results] == ["slept 0.2", "slept 0.1", "slept 0.2"]  # type: ignore[union-attr]


async def test_a_call_after_the_abort_does_not_start() -> None:
    reg = ToolRegistry()
    abort = asyncio.Event()
    started: list[str] = []

    async def polite(args: dict[str, Any], ctx: ToolContext) -> str:
        started.append("polite")
        return "ran"

    reg.register("polite", polite)
    abort.set()
    (skipped,) = await run_tool_calls([call("polite")], reg, abort=abort)
    assert started == []
    assert skipped.is_error and "not run: aborted" in skipped.content[0].text  # type: ignore[union-attr]


async def test_arguments_that_were_not_json_are_an_error_result() -> None:
    reg = ToolRegistry()

    async def echo(args: dict[str, Any], ctx: ToolContext) -> str:
        return "ran"

    reg.register("echo", echo)
    bad = ToolCallBlock(id="c9", name="echo", arguments={}, raw_arguments='{"city": "Par')
    (result,) = await run_tool_calls([bad], reg)
    assert result.is_error and result.tool_name == "echo" and result.tool_call_id == "c9"
    assert "not valid JSON" in result.content[0].text  # type: ignore[union-attr]


async def test_a_failing_command_reports_its_status_and_stderr() -> None:
    reg = ToolRegistry()
    reg.register_command("fail", lambda a: ["sh", "-c", "echo boom >&2; exit 3"])
    (result,) = await run_tool_calls([call("fail")], reg)
    assert result.is_error and result.content[0].text == "RuntimeError: exit status 3: boom"  # type: ignore[union-attr]
