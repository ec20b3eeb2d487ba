"""One agent step of the reference runtime: send the turn, run the tool calls of its answer, stop there.

- The answer is read as it arrives; a cancel while it streams stops the read at once. The history
  keeps only what is whole: text and thinking that arrived, and the tool calls whose end arrived
  (a call is parsed only at its end, never from half its arguments), each answered with an error
  result, since it never ran. The turn ends `aborted`.
- The tool calls run as `runtime.tools` runs them: one after the other in the model's order, each
  bounded by `tool_timeout_s`, a cancel stopping the one running and answering the rest, a tool that
  starts a sub-agent refused past `max_depth`, schema defaults the provider never saw filled in.
- Every tool call of the history has exactly one result; a provider error ends the step as `error`
  with nothing added.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx

from conformance.capabilities import ProviderProfile
from conformance.codecs import codec_for, decode_response
from conformance.model import (
    AssistantMessage,
    Conversation,
    Message,
    Outcome,
    TextBlock,
    ToolCallBlock,
    ToolCallEndEvent,
    ToolResultMessage,
    dump,
)
from conformance.runtime.auth import apply_auth
from conformance.runtime.prepare import prepare
from conformance.runtime.tools import ToolContext, ToolRegistry, run_tool_calls

DEFAULT_TOOL_TIMEOUT_S = 30.0


async def _read(
    client: httpx.AsyncClient, conv: Conversation, profile: ProviderProfile, key: str | None, ended: set[int], acc: Any
) -> Outcome:
    codec = codec_for(profile)
    wire = codec.encode(conv, profile)
    url, headers = apply_auth(wire, profile, key)
    if not wire.stream:
        response = await client.request(wire.method, url, json=wire.body, headers=headers)
        return decode_response(codec, profile, response.status_code, dict(response.headers), response.content)
    async with client.stream(wire.method, url, json=wire.body, headers=headers) as response:
        if response.status_code >= 400:
            body = await response.aread()
            return Outcome(error=codec.classify(response.status_code, dict(response.headers), body, profile))
        async for chunk in response.aiter_bytes():
            ended.update(e.index for e in acc.feed(chunk) if isinstance(e, ToolCallEndEvent))
    return Outcome.of(acc.finish())


def _whole(message: AssistantMessage, ended: set[int]) -> AssistantMessage:
    """What a cancelled answer keeps: every block but the tool calls whose end did not arrive."""
    content = [b for i, b in enumerate(message.content) if not isinstance(b, ToolCallBlock) or i in ended]
    return message.model_copy(update={"content": content, "stop_reason": "aborted"})


def not_run_result(call: ToolCallBlock) -> ToolResultMessage:
    """The error result of a call a cancel kept from running."""
    text = f"{call.name} not run: the turn was cancelled"
    return ToolResultMessage(tool_call_id=call.id, tool_name=call.name, content=[TextBlock(text=text)], is_error=True)


def tool_registry(
    client: httpx.AsyncClient, conv: Conversation, tool_url: str, settings: dict[str, Any]
) -> ToolRegistry:
    timeout = float(settings.get("tool_timeout_s", DEFAULT_TOOL_TIMEOUT_S))
    spawning = set(settings.get("spawning_tools", ()))
    registry = ToolRegistry()
    for spec in conv.tools:

        async def call(arguments: dict[str, Any], ctx: ToolContext, name: str = spec.name) -> str:
            response = await client.post(f"{tool_url.rstrip('/')}/{name}", json=arguments)
            if response.status_code != 200:
                raise RuntimeError(f"status {response.status_code}: {response.text[:200]}")
            return response.text

        registry.register(spec.name, call, timeout_s=timeout, spawns_agent=spec.name in spawning)
    return registry


def _wake(loop: asyncio.AbstractEventLoop, abort: asyncio.Event) -> None:
    """Set `abort` in the step's loop, from whichever thread cancels; a cancel after the step is over is moot."""
    with contextlib.suppress(RuntimeError):  # the loop is closed: the step has returned
        loop.call_soon_threadsafe(abort.set)


async def run_agent_step(
    conv: Conversation,
    profile: ProviderProfile,
    *,
    transport: httpx.AsyncBaseTransport,
    key: str | None,
    tool_url: str,
    cancel: Any,
    settings: dict[str, Any],
) -> dict[str, Any]:
    """The `agent` capability's answer for one step (see `runtime.protocol.AgentRequest`)."""
    loop = asyncio.get_running_loop()
    abort = asyncio.Event()
    cancel.add_callback(lambda: _wake(loop, abort))
    prepared = prepare(conv, profile)
    ended: set[int] = set()
    acc = codec_for(profile).stream(profile, events=True)  # fresh for this response
    async with httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(600.0)) as client:
        reader = asyncio.ensure_future(_read(client, prepared.conversation, profile, key, ended, acc))
        stopper = asyncio.ensure_future(abort.wait())
        try:
            await asyncio.wait({reader, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopper.cancel()
            if not reader.done():
                reader.cancel()  # the read stops here: the response is closed, nothing more is taken
            await asyncio.wait({reader, stopper})
        if reader.cancelled():
            kept = _whole(acc.finish(), ended)
            calls = [b for b in kept.content if isinstance(b, ToolCallBlock)]
            added: list[Message] = [kept, *(not_run_result(c) for c in calls)] if kept.content else []
            return {"status": "aborted", "messages": [dump(m) for m in added]}
        outcome = reader.result()
        if outcome.message is None:
            error = None if outcome.error is None else outcome.error.model_dump(mode="json", exclude_none=True)
            return {"status": "error", "messages": [], "error": error}
        message = outcome.message
        calls = [b for b in message.content if isinstance(b, ToolCallBlock)]
        results = await run_tool_calls(
            calls,
            tool_registry(client, conv, tool_url, settings),
            abort=abort,
            depth=int(settings.get("depth", 0)),
            max_depth=int(settings.get("max_depth", 3)),
            prepared=prepared,
        )
    status = "aborted" if abort.is_set() else "done"
    return {"status": status, "messages": [dump(m) for m in (message, *results)]}


__all__ = ["DEFAULT_TOOL_TIMEOUT_S", "not_run_result", "run_agent_step", "tool_registry"]
