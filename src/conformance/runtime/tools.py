"""Running the tool calls of one response: in order, bounded in time, abortable, depth-limited.

- Calls run sequentially in the order the model made them (`concurrent=True` runs them together,
  still awaited); each gets a result message, whatever happens.
- A timeout stops the tool and returns an error result; a subprocess tool is killed with its whole
  process group and reaped before the result is returned.
- Abort (an `asyncio.Event`) stops the running tool and answers it, and every call not started
  yet, with an error result.
- A tool that starts a sub-agent declares it (`spawns_agent=True`); it runs one level deeper and is
  refused past `max_depth`.
- Schema defaults the provider never saw (removed by sanitizing) are filled into the arguments
  before the tool runs, when the prepared schemas are passed in.
- An unknown tool or a tool that raises gives an error result with the reason; nothing is
  swallowed, nothing runs unawaited.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.model import TextBlock, ToolCallBlock, ToolResultMessage
from conformance.runtime.prepare import Prepared

ToolFn = Callable[[dict[str, Any], "ToolContext"], Awaitable[str | dict[str, Any]]]


@dataclass(frozen=True)
class ToolContext:
    depth: int
    abort: asyncio.Event


@dataclass(frozen=True)
class Tool:
    fn: ToolFn
    timeout_s: float = 30.0
    spawns_agent: bool = False


@dataclass
class ToolRegistry:
    tools: dict[str, Tool] = field(default_factory=dict)

    def register(self, name: str, fn: ToolFn, *, timeout_s: float = 30.0, spawns_agent: bool = False) -> None:
        self.tools[name] = Tool(fn, timeout_s, spawns_agent)

    def register_command(
        self, name: str, argv: Callable[[dict[str, Any]], Sequence[str]], *, timeout_s: float = 30.0
    ) -> None:
        """A tool that runs a command; its standard output is the result."""

        async def run(arguments: dict[str, Any], ctx: ToolContext) -> str:
            return await run_command(list(argv(arguments)))

        self.register(name, run, timeout_s=timeout_s)


async def run_command(argv: list[str]) -> str:
    """Run `argv` in its own process group; on cancellation the whole group is killed and reaped,
    even when the cancellation arrives while the process is still being started."""
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True
        )
    )
    try:
        proc = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        proc = await spawn  # let the start finish, so there is a group to kill
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise
    try:
        out, err = await proc.communicate()
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise
    if proc.returncode:
        raise RuntimeError(f"exit status {proc.returncode}: {err.decode(errors='replace').strip()[:500]}")
    return out.decode(errors="replace")


def _result(call: ToolCallBlock, text: str, *, error: bool) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call.id, tool_name=call.name, content=[TextBlock(text=text)], is_error=error)


async def _run_one(
    call: ToolCallBlock, registry: ToolRegistry, ctx: ToolContext, max_depth: int, prepared: Prepared | None
) -> ToolResultMessage:
    tool = registry.tools.get(call.name)
    if tool is None:
        return _result(call, f"unknown tool {call.name!r}", error=True)
    if call.raw_arguments is not None:
        return _result(call, f"arguments are not valid JSON: {call.raw_arguments[:200]}", error=True)
    depth = ctx.depth + 1 if tool.spawns_agent else ctx.depth
    if depth > max_depth:
        return _result(call, f"refused: sub-agent depth {depth} exceeds the limit of {max_depth}", error=True)
    arguments = prepared.with_defaults(call.name, call.arguments) if prepared is not None else call.arguments
    task = asyncio.ensure_future(tool.fn(arguments, ToolContext(depth, ctx.abort)))
    aborted = asyncio.ensure_future(ctx.abort.wait())
    try:
        done, _ = await asyncio.wait({task, aborted}, timeout=tool.timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        # On a timeout, an abort or the caller's own cancellation, the tool (a subprocess tool with
        # its whole process group) is stopped and awaited before anything else happens.
        aborted.cancel()
        task.cancel()
        await asyncio.wait({task, aborted})
    if task not in done:
        why = "aborted" if ctx.abort.is_set() else f"timed out after {tool.timeout_s:g}s"
        return _result(call, f"{call.name} {why}", error=True)
    try:
        value = task.result()
    except Exception as exc:  # the tool's own failure becomes its result, with the reason
        return _result(call, f"{type(exc).__name__}: {exc}", error=True)
    return _result(call, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), error=False)


async def run_tool_calls(
    calls: Sequence[ToolCallBlock],
    registry: ToolRegistry,
    *,
    abort: asyncio.Event | None = None,
    concurrent: bool = False,
    depth: int = 0,
    max_depth: int = 3,
    prepared: Prepared | None = None,
) -> list[ToolResultMessage]:
    """One result per call, in the calls' order."""
    ctx = ToolContext(depth, abort or asyncio.Event())
    if concurrent:
        return list(await asyncio.gather(*(_run_one(c, registry, ctx, max_depth, prepared) for c in calls)))
    results: list[ToolResultMessage] = []
    for call in calls:
        if ctx.abort.is_set():
            results.append(_result(call, f"{call.name} not run: aborted", error=True))
            continue
        results.append(await _run_one(call, registry, ctx, max_depth, prepared))
    return results
