"""One turn of the reference runtime: prepare → encode → send → decode → classify → decide.

Awaited end to end over an injected httpx transport, clock and random source, so a turn replays
from a cassette (or against the emulator) and a 30 s retry wait passes instantly on a fake clock.
Per-turn state (stream accumulators, the compression flag) is created fresh for every call.

Every runtime action lands in the turn's trace as plain data — `send`, `wait`, `compress`,
`rotate`, `refresh`, `give_up`, `done` — which `retry` scenarios compare with their expectation.
"""

from __future__ import annotations

import dataclasses
import random
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict

from conformance.capabilities import ProviderProfile
from conformance.codecs import codec_for, decode_response
from conformance.codecs.errorkit import redact
from conformance.model import AssistantMessage, Conversation, ErrorKind, Outcome, ProviderError
from conformance.runtime.auth import AuthPool, apply_auth
from conformance.runtime.clock import Clock
from conformance.runtime.compress import DEFAULT_THRESHOLD, compress_tool_results
from conformance.runtime.context.hook import Compactor
from conformance.runtime.context.proxy import needs_proxy_mode, proxy_conversation
from conformance.runtime.entry import validate_conversation
from conformance.runtime.logsafe import redact_line
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.retry import CompressAndRetry, GiveUp, RetryAfter, RetryPolicy, RotateProfile, decide

Action = Literal[
    "send", "wait", "compress", "compact", "trim", "flatten", "rotate", "refresh", "reshape_tools", "give_up", "done"
]

TOOL_SHAPES: tuple[str, ...] = ("openai", "function_declarations", "functionDeclarations")
"""How tools are declared to a Gemini-compatible proxy, tried in order when it rejects the previous
shape: the dialect's own, then Gemini's native `function_declarations`, then `functionDeclarations`."""
TOOL_SHAPE_ERRORS = re.compile(r"tool_type|one_of|oneof", re.IGNORECASE)
"""Error messages of proxies that reject OpenAI-style tool declarations."""


def reshape_tools(body: dict[str, Any], shape: str) -> dict[str, Any]:
    """`tools` of an OpenAI-style body re-declared in a Gemini shape (a new body)."""
    tools = body.get("tools")
    if shape == "openai" or not isinstance(tools, list):
        return body
    declarations = [
        {k: v for k, v in t["function"].items() if k in ("name", "description", "parameters")}
        for t in tools
        if isinstance(t, dict) and isinstance(t.get("function"), dict)
    ]
    return {**body, "tools": [{shape: declarations}]}


def without_tools(body: dict[str, Any]) -> dict[str, Any]:
    """A tool-result continuation for proxies that reject tools there: no tools, `tool_choice: none`."""
    out = {k: v for k, v in body.items() if k != "tools"}
    out["tool_choice"] = "none"
    return out


TRANSPORT_KINDS: tuple[tuple[type[httpx.TransportError], ErrorKind, ErrorKind], ...] = (
    (httpx.TimeoutException, "timeout", "timeout"),
    (httpx.TransportError, "server", "stream_interrupted"),
)
"""httpx failures as provider errors: (exception, kind before the response, kind once it streams).
A connection that fails or times out is data for the retry policy, like a 5xx, not an exception."""


def transport_error(exc: httpx.TransportError, *, streaming: bool) -> ProviderError:
    before, during = next((b, d) for cls, b, d in TRANSPORT_KINDS if isinstance(exc, cls))
    detail = redact_line(str(exc)) or type(exc).__name__
    return ProviderError(
        kind=during if streaming else before, provider_code=type(exc).__name__, message=f"transport: {detail}"
    )


class TraceStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Action
    attempt: int | None = None
    seconds: float | None = None
    profile: int | None = None
    status: int | None = None
    kind: str | None = None
    count: int | None = None
    reason: str | None = None


@dataclass
class TurnResult:
    message: AssistantMessage | None
    error: ProviderError | None
    trace: list[TraceStep] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"trace": [s.model_dump(exclude_none=True) for s in self.trace]}
        if self.error is None and self.message is not None:
            out["message"] = self.message.model_dump(mode="json", exclude_none=True)
        else:
            out["error"] = None if self.error is None else self.error.model_dump(mode="json", exclude_none=True)
            out["partial"] = None if self.message is None else self.message.model_dump(mode="json", exclude_none=True)
        return out


async def _send(
    client: httpx.AsyncClient,
    conv: Conversation,
    profile: ProviderProfile,
    key: str | None,
    *,
    tool_shape: str = "openai",
    continuation_without_tools: bool = False,
) -> tuple[int | None, Outcome]:
    wire = ReferenceRuntime().wire_request(conv, profile)
    body = reshape_tools(wire.body, tool_shape)
    if continuation_without_tools and conv.messages and conv.messages[-1].role == "tool_result":
        body = without_tools(body)
    wire = dataclasses.replace(wire, body=body)
    url, headers = apply_auth(wire, profile, key)
    codec = codec_for(profile)
    try:
        if not wire.stream:
            response = await client.request(wire.method, url, json=wire.body, headers=headers)
            outcome = decode_response(codec, profile, response.status_code, dict(response.headers), response.content)
            return response.status_code, outcome
        async with client.stream(wire.method, url, json=wire.body, headers=headers) as response:
            if response.status_code >= 400:
                error_body = await response.aread()
                return response.status_code, Outcome(
                    error=codec.classify(response.status_code, dict(response.headers), error_body, profile)
                )
            accumulator = codec.stream(profile, events=False)  # fresh for every response
            try:
                async for chunk in response.aiter_bytes():
                    accumulator.feed(chunk)
            except httpx.TransportError as exc:
                # The connection broke mid-stream: what arrived is kept as the partial message.
                error = transport_error(exc, streaming=True).model_copy(update={"status": response.status_code})
                partial = accumulator.finish().model_copy(update={"error": error, "stop_reason": "error"})
                return response.status_code, Outcome(error=error, partial=partial)
            return response.status_code, Outcome.of(accumulator.finish())
    except httpx.TransportError as exc:
        return None, Outcome(error=transport_error(exc, streaming=False))


async def run_turn(
    conv: Conversation,
    profile: ProviderProfile,
    *,
    transport: httpx.AsyncBaseTransport,
    clock: Clock,
    rng: random.Random,
    keys: AuthPool | str | None = None,
    policy: RetryPolicy | None = None,
    compress_threshold: int = DEFAULT_THRESHOLD,
    continuation_without_tools: bool = False,
    stream: bool | None = None,
    compactor: Compactor | None = None,
    gemini_proxy: bool = False,
) -> TurnResult:
    """Send one conversation turn until it succeeds or the policy gives up.

    `keys`: an `AuthPool` (several auth profiles, kept by the caller across turns), one key, or
    None for a keyless provider (or a transport that adds credentials itself).
    `stream`: overrides `conv.options.stream` when given.
    `continuation_without_tools`: on a turn that continues after tool results, send no tools and
    `tool_choice: none` (for Gemini-compatible proxies that reject tools there).
    `compactor` (see `runtime.context`): compacts the history before the first send when it is over
    the compactor's threshold, and once after a context overflow, before any other recovery.
    `gemini_proxy`: send the history in proxy mode from the start; without it, proxy mode is
    switched on once when the provider rejects the turn with a proxy error (`context.proxy`)."""
    conv = validate_conversation(conv, profile)
    if stream is not None and stream != conv.options.stream:
        conv = conv.model_copy(update={"options": conv.options.model_copy(update={"stream": stream})})
    if isinstance(keys, str):
        keys = AuthPool.of([keys])
    policy = policy or RetryPolicy()
    trace: list[TraceStep] = []
    # --- context hooks (runtime.context): proxy mode and automatic compaction -------------------
    proxied = gemini_proxy
    if proxied:
        conv, _ = proxy_conversation(conv, profile)
        continuation_without_tools = True
    compacted = compactor is None
    if compactor is not None and (done := await compactor(conv, "threshold")) is not None:
        compacted = done.action == "compact"
        if done.conversation is not None:
            conv = done.conversation
        trace.append(TraceStep(action=done.action, count=done.count, reason=done.reason))
    # ---------------------------------------------------------------------------------------------
    compressed = False
    shapes = list(TOOL_SHAPES)
    attempt = 0
    async with httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(600.0)) as client:
        while True:
            index: int | None = None
            if keys is not None:
                index = keys.pick(clock.now())
                if index is None:
                    ready = keys.next_ready(clock.now())
                    if ready is None:
                        trace.append(TraceStep(action="give_up", reason="every auth profile needs a refresh"))
                        return TurnResult(None, ProviderError(kind="auth", message="no usable API key"), trace)
                    wait = round(ready - clock.now(), 3)
                    trace.append(TraceStep(action="wait", seconds=wait, reason="every auth profile is cooling down"))
                    await clock.sleep(wait)
                    continue
            attempt += 1
            trace.append(TraceStep(action="send", attempt=attempt, profile=index))
            key = None if keys is None or index is None else keys.key(index)
            status, outcome = await _send(
                client, conv, profile, key, tool_shape=shapes[0], continuation_without_tools=continuation_without_tools
            )
            if outcome.message is not None:
                trace.append(TraceStep(action="done", attempt=attempt, status=status))
                return TurnResult(outcome.message, None, trace)
            error = outcome.error
            assert error is not None
            if error.kind == "auth" and keys is not None and index is not None and outcome.partial is not None:
                # A 401 in the middle of a stream: keep what arrived, refresh this profile, retry next turn.
                keys.mark_refresh(index)
                trace.append(TraceStep(action="refresh", profile=index, kind=error.kind, reason="401 mid-stream"))
                return TurnResult(outcome.partial, error, trace)
            if (
                error.kind == "invalid_request"
                and conv.tools
                and len(shapes) > 1
                and TOOL_SHAPE_ERRORS.search(error.message)
            ):
                shapes.pop(0)
                trace.append(
                    TraceStep(action="reshape_tools", kind=error.kind, reason=f"tools declared as {shapes[0]}")
                )
                continue
            # --- context hooks: proxy recovery, compact-then-retry on overflow ----------------------
            if not proxied and needs_proxy_mode(error):
                proxied, continuation_without_tools = True, True
                conv, count = proxy_conversation(conv, profile)
                trace.append(TraceStep(action="flatten", count=count, kind=error.kind, reason="proxy mode"))
                continue
            if error.kind == "context_overflow" and not compacted and compactor is not None:
                compacted = True
                done = await compactor(conv, "overflow")
                if done is not None and done.conversation is not None:
                    conv = done.conversation
                    trace.append(TraceStep(action="compact", count=done.count, kind=error.kind, reason=done.reason))
                    continue
            # ------------------------------------------------------------------------------------
            if error.status in profile.payload_too_large_statuses and error.kind == "invalid_request":
                error = error.model_copy(update={"kind": "payload_too_large"})  # the profile says so
            decision = decide(
                error,
                attempt,
                policy,
                clock,
                rng,
                compressed=compressed,
                profiles_available=len(keys) if keys is not None else 1,
            )
            if isinstance(decision, GiveUp):
                trace.append(
                    TraceStep(action="give_up", kind=error.kind, status=error.status, reason=redact(decision.reason))
                )
                return TurnResult(outcome.partial, error, trace)
            if isinstance(decision, RetryAfter):
                trace.append(
                    TraceStep(action="wait", seconds=decision.seconds, kind=error.kind, reason=decision.reason)
                )
                await clock.sleep(decision.seconds)
            elif isinstance(decision, CompressAndRetry):
                messages, count = compress_tool_results(list(conv.messages), compress_threshold)
                compressed = True
                if count == 0:  # nothing to compress: the same request would fail the same way
                    trace.append(
                        TraceStep(action="give_up", kind=error.kind, status=error.status, reason="nothing to compress")
                    )
                    return TurnResult(outcome.partial, error, trace)
                conv = conv.model_copy(update={"messages": messages})
                trace.append(TraceStep(action="compress", count=count, kind=error.kind, reason=decision.reason))
            elif isinstance(decision, RotateProfile):
                assert keys is not None and index is not None
                if error.kind == "auth":
                    keys.mark_refresh(index)
                else:
                    keys.cool_down(index, decision.until)
                trace.append(
                    TraceStep(
                        action="rotate",
                        profile=index,
                        seconds=decision.cooldown_s,
                        kind=error.kind,
                        reason=decision.reason,
                    )
                )
