"""Mutant agents for the `agent` rows: the reference's agent step with one realistic bug each.

`AgentMutant()` with no bug is the reference step written again from its public parts (a test checks
it earns the reference's verdicts); each flag plants one bug:

- `cancel_between_steps`: the cancel is looked at only once the answer has been read whole;
- `keeps_half_calls`: a cancelled answer keeps every tool call, ended or not;
- `abort_skips_tools`: the cancel is not handed to the tool runner (a running tool is never stopped);
- `no_tool_timeout`: the tool timeout setting is not read (tools may run for an hour);
- `concurrent`: the calls of one answer run together;
- `ignores_depth`: a tool that starts a sub-agent is not counted as a level deeper;
- `no_client_defaults`: the tool runs with the arguments as the model sent them, schema defaults
  the provider never saw left out;
- `tool_left_running`: each tool runs in a thread of its own; a timeout or an abort answers the
  call with an error as it should, but the thread goes on and the tool gets its answer;
- `fire_and_forget_cancel`: the step runs in the background and a cancel returns `aborted` at once
  (seed 004's `runLoop().catch(...)`), while the background goes on reading the stream and runs the
  tools;
- `refuses_all_spawn`: every tool that starts a sub-agent is refused, whatever the depth;
- `depth_ge`: a sub-agent is refused at `depth >= max_depth`, one level too early;
- `tool_as_level`: every tool call counts as a level deeper, spawning or not.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from typing import Any

import httpx

from conformance.capabilities import get_profile
from conformance.codecs import codec_for
from conformance.model import AssistantMessage, Conversation, Message, Outcome, ToolCallBlock, ToolCallEndEvent, dump
from conformance.model.parse import parse_conversation
from conformance.runtime.agent import DEFAULT_TOOL_TIMEOUT_S, not_run_result, tool_registry
from conformance.runtime.auth import apply_auth
from conformance.runtime.prepare import prepare
from conformance.runtime.protocol import AgentRequest, CancelSignal
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.tools import ToolContext, ToolRegistry, run_tool_calls

BUGS = (
    "cancel_between_steps",
    "keeps_half_calls",
    "abort_skips_tools",
    "no_tool_timeout",
    "concurrent",
    "ignores_depth",
    "no_client_defaults",
    "tool_left_running",
    "fire_and_forget_cancel",
    "refuses_all_spawn",
    "depth_ge",
    "tool_as_level",
)


def _threaded_tools(transport: Any, conv: Conversation, tool_url: str, settings: dict[str, Any]) -> ToolRegistry:
    """The harness's tools, each call made by a thread of its own that nothing stops."""
    timeout = float(settings.get("tool_timeout_s", DEFAULT_TOOL_TIMEOUT_S))
    spawning = set(settings.get("spawning_tools", ()))
    registry = ToolRegistry()
    for spec in conv.tools:

        async def call(arguments: dict[str, Any], ctx: ToolContext, name: str = spec.name) -> str:
            loop = asyncio.get_running_loop()
            answer: asyncio.Future[str] = loop.create_future()

            def settle(text: str) -> None:
                if not answer.done():
                    answer.set_result(text)

            def work() -> None:
                with httpx.Client(transport=transport, timeout=600.0) as client:
                    text = client.post(f"{tool_url.rstrip('/')}/{name}", json=arguments).text
                with contextlib.suppress(RuntimeError):  # the step's loop is closed: nobody listens
                    loop.call_soon_threadsafe(settle, text)

            threading.Thread(target=work, daemon=True).start()
            return await answer

        registry.register(spec.name, call, timeout_s=timeout, spawns_agent=spec.name in spawning)
    return registry


class AgentMutant(ReferenceRuntime):
    def __init__(self, *bugs: str) -> None:
        unknown = set(bugs) - set(BUGS)
        assert not unknown, unknown
        for bug in BUGS:
            setattr(self, bug, bug in bugs)
        self.name = "agent-mutant(" + ",".join(bugs) + ")"

    def agent_turn(self, request: AgentRequest) -> dict[str, Any]:
        if not self.fire_and_forget_cancel:
            return asyncio.run(self._step(request))
        over = threading.Event()
        answer: dict[str, Any] = {}

        def loop() -> None:  # the step with a cancel nobody fires: it reads to the end, runs the tools
            with contextlib.suppress(Exception):
                answer.update(asyncio.run(self._step(dataclasses.replace(request, cancel=CancelSignal()))))
            over.set()

        threading.Thread(target=loop, daemon=True).start()
        request.cancel.add_callback(over.set)
        over.wait()
        return dict(answer) if answer else {"status": "aborted", "messages": []}

    async def _step(self, request: AgentRequest) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        abort = asyncio.Event()
        request.cancel.add_callback(lambda: loop.call_soon_threadsafe(abort.set))
        profile = get_profile(request.provider).with_base_url(request.base_url)
        conv = parse_conversation(request.conversation)
        prepared = prepare(conv, profile)
        codec = codec_for(profile)
        wire = codec.encode(prepared.conversation, profile)
        url, headers = apply_auth(wire, profile, request.keys[0] if request.keys else None)
        acc = codec.stream(profile, events=True)
        ended: set[int] = set()
        cancelled = False
        settings = dict(request.settings)
        async with httpx.AsyncClient(transport=request.transport, timeout=600.0) as client:

            async def read() -> None:
                async with client.stream(wire.method, url, json=wire.body, headers=headers) as response:
                    async for chunk in response.aiter_bytes():
                        ended.update(e.index for e in acc.feed(chunk) if isinstance(e, ToolCallEndEvent))

            reader = asyncio.ensure_future(read())
            if not self.cancel_between_steps:
                stopper = asyncio.ensure_future(abort.wait())
                await asyncio.wait({reader, stopper}, return_when=asyncio.FIRST_COMPLETED)
                stopper.cancel()
                if not reader.done():
                    reader.cancel()
                    cancelled = True
            await asyncio.wait({reader})
            finished = acc.finish()
            whole = Outcome.of(finished).message
            message: AssistantMessage = finished if cancelled or whole is None else whole
            if cancelled or (self.cancel_between_steps and abort.is_set()):
                if not cancelled:  # read whole, then the cancel is seen: nothing runs
                    ended = set(range(len(message.content)))
                content = [
                    b
                    for i, b in enumerate(message.content)
                    if not isinstance(b, ToolCallBlock) or i in ended or self.keeps_half_calls
                ]
                kept = message.model_copy(update={"content": content, "stop_reason": "aborted"})
                calls = [b for b in content if isinstance(b, ToolCallBlock)]
                added: list[Message] = [kept, *(not_run_result(c) for c in calls)] if content else []
                return {"status": "aborted", "messages": [dump(m) for m in added]}
            if self.no_tool_timeout:
                settings["tool_timeout_s"] = 3600
            if self.ignores_depth:
                settings.pop("spawning_tools", None)
            if self.tool_as_level:
                settings["spawning_tools"] = [t.name for t in conv.tools]
            depth, max_depth = int(settings.get("depth", 0)), int(settings.get("max_depth", 3))
            if self.refuses_all_spawn:
                max_depth = min(max_depth, depth)  # one level deeper is always past it
            if self.depth_ge:
                max_depth -= 1  # `depth > max_depth - 1` is `depth >= max_depth`
            calls = [b for b in message.content if isinstance(b, ToolCallBlock)]
            if self.tool_left_running:
                registry = _threaded_tools(request.transport, conv, request.tool_url, settings)
            else:
                registry = tool_registry(client, conv, request.tool_url, settings)
            results = await run_tool_calls(
                calls,
                registry,
                abort=None if self.abort_skips_tools else abort,
                concurrent=self.concurrent,
                depth=depth,
                max_depth=max_depth,
                prepared=None if self.no_client_defaults else prepared,
            )
        status = "aborted" if abort.is_set() else "done"
        return {"status": status, "messages": [dump(m) for m in (message, *results)]}
