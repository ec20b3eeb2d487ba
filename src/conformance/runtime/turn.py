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
from typing import Any, Literal, assert_never

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
from conformance.runtime.prepare import wire_request
from conformance.runtime.retry import (
    CompressAndRetry,
    Decision,
    GiveUp,
    RetryAfter,
    RetryPolicy,
    RotateProfile,
    decide,
)

Action = Literal[
    "send",
    "wait",
    "compress",
    "compact",
    "trim",
    "flatten",
    "rotate",
    "refresh",
    "reshape_tools",
    "fallback",
    "give_up",
    "done",
]

FALLBACK_KINDS: frozenset[str] = frozenset({"overloaded", "server", "timeout", "stream_interrupted", "rate_limited"})
"""Failures of the provider's side that another provider may not share: once the retry policy gives up
on one of these, a turn with fallback providers sends the conversation to the next one. A request the
provider refused (invalid_request, context_overflow, content_filter, auth, ...) is not sent elsewhere."""


@dataclass(frozen=True)
class Fallback:
    """A provider a turn falls back to: its profile (with the base URL to reach it), the model to ask
    for there (None: the profile's default) and its keys."""

    profile: ProviderProfile
    model: str | None = None
    keys: tuple[str, ...] = ()


TOOL_SHAPES: tuple[str, ...] = ("function", "function_declarations", "functionDeclarations")
"""How tools are declared to a Gemini-compatible proxy, tried in order when it rejects the previous
shape: the dialect's own (`function`: `{"type": "function", "function": {...}}`), then Gemini's native
`function_declarations`, then `functionDeclarations`."""
TOOL_SHAPE_ERRORS = re.compile(r"tool_type|one_of|oneof", re.IGNORECASE)
"""Error messages of proxies that reject OpenAI-style tool declarations."""


def reshape_tools(body: dict[str, Any], shape: str) -> dict[str, Any]:
    """`tools` of an OpenAI-style body re-declared in a Gemini shape (a new body)."""
    tools = body.get("tools")
    if shape == TOOL_SHAPES[0] or not isinstance(tools, list):
        return body
    declarations = [
        {k: v for k, v in t["function"].items() if k in ("name", "description", "parameters")}
        for t in tools
        if isinstance(t, dict) and isinstance(t.get("function"), dict)
    ]
    return {**body, "tools": [{shape: declarations}]}


def failed_generation(error: ProviderError, profile: ProviderProfile) -> bool:
    """Whether a 400 reports the model's failed generation (the profile's `failed_generation_messages`)."""
    return any(text in error.message for text in profile.failed_generation_messages)


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
    provider: str | None = None
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
    tool_shape: str = TOOL_SHAPES[0],
    continuation_without_tools: bool = False,
) -> tuple[int | None, Outcome]:
    wire = wire_request(conv, profile)
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


@dataclass
class _Turn:
    """What one turn carries from attempt to attempt; created fresh for every `run_turn`."""

    conv: Conversation
    profile: ProviderProfile
    clock: Clock
    keys: AuthPool | None
    policy: RetryPolicy
    compress_threshold: int
    continuation_without_tools: bool
    compactor: Compactor | None
    proxied: bool
    trace: list[TraceStep] = field(default_factory=list)
    compressed: bool = False
    compacted: bool = False
    shapes: list[str] = field(default_factory=lambda: list(TOOL_SHAPES))
    attempt: int = 0

    def step(self, action: Action, **fields: Any) -> None:
        self.trace.append(TraceStep(action=action, **fields))

    def end(self, message: AssistantMessage | None, error: ProviderError | None) -> TurnResult:
        return TurnResult(message, error, self.trace)

    async def start(self) -> None:
        """Proxy mode from the start, and compaction before the first send when over the threshold."""
        if self.proxied:
            self.conv, _ = proxy_conversation(self.conv, self.profile)
            self.continuation_without_tools = True
        self.compacted = self.compactor is None
        if self.compactor is not None and (done := await self.compactor(self.conv, "threshold")) is not None:
            self.compacted = done.action == "compact"
            if done.conversation is not None:
                self.conv = done.conversation
            self.step(done.action, count=done.count, reason=done.reason)

    async def pick_key(self) -> int | TurnResult | None:
        """The auth profile to send with (None: no keys); a wait when all are cooling (then `_WAITED`)."""
        if self.keys is None:
            return None
        index = self.keys.pick(self.clock.now())
        if index is not None:
            return index
        ready = self.keys.next_ready(self.clock.now())
        if ready is None:
            self.step("give_up", reason="every auth profile needs a refresh")
            return self.end(None, ProviderError(kind="auth", message="no usable API key"))
        wait = round(ready - self.clock.now(), 3)
        self.step("wait", seconds=wait, reason="every auth profile is cooling down")
        await self.clock.sleep(wait)
        return _WAITED

    async def recover(self, error: ProviderError, outcome: Outcome, index: int | None) -> TurnResult | bool:
        """Recoveries that come before the retry policy: True to send again, a result to stop,
        False when none applies."""
        if error.kind == "auth" and self.keys is not None and index is not None and outcome.partial is not None:
            # A 401 in the middle of a stream: keep what arrived, refresh this profile, retry next turn.
            self.keys.mark_refresh(index)
            self.step("refresh", profile=index, kind=error.kind, reason="401 mid-stream")
            return self.end(outcome.partial, error)
        if (
            error.kind == "invalid_request"
            and self.conv.tools
            and len(self.shapes) > 1
            and TOOL_SHAPE_ERRORS.search(error.message)
        ):
            self.shapes.pop(0)
            self.step("reshape_tools", kind=error.kind, reason=f"tools declared as {self.shapes[0]}")
            return True
        # context hooks (runtime.context): proxy recovery, compact-then-retry on overflow
        if not self.proxied and needs_proxy_mode(error):
            self.proxied, self.continuation_without_tools = True, True
            self.conv, count = proxy_conversation(self.conv, self.profile)
            self.step("flatten", count=count, kind=error.kind, reason="proxy mode")
            return True
        if error.kind == "context_overflow" and not self.compacted and self.compactor is not None:
            self.compacted = True
            done = await self.compactor(self.conv, "overflow")
            if done is not None and done.conversation is not None:
                self.conv = done.conversation
                self.step("compact", count=done.count, kind=error.kind, reason=done.reason)
                return True
        return False

    def fall_back(self, to: Fallback, conv: Conversation, error: ProviderError, why: str) -> None:
        """Send the turn's conversation to the next provider from here on, with fresh attempts."""
        self.step("fallback", provider=to.profile.name, kind=error.kind, reason=redact(f"{why}; next provider"))
        self.profile = to.profile
        self.conv = validate_conversation(conv.model_copy(update={"model": to.model}), to.profile)
        self.keys = AuthPool.of(list(to.keys)) if to.keys else None
        self.attempt, self.compressed, self.shapes = 0, False, list(TOOL_SHAPES)

    async def apply(
        self, decision: Decision, error: ProviderError, outcome: Outcome, index: int | None
    ) -> TurnResult | None:
        """Carry out the retry policy's decision; a result when the turn ends here."""
        if isinstance(decision, GiveUp):
            self.step("give_up", kind=error.kind, status=error.status, reason=redact(decision.reason))
            return self.end(outcome.partial, error)
        if isinstance(decision, RetryAfter):
            self.step("wait", seconds=decision.seconds, kind=error.kind, reason=decision.reason)
            await self.clock.sleep(decision.seconds)
        elif isinstance(decision, CompressAndRetry):
            messages, count = compress_tool_results(list(self.conv.messages), self.compress_threshold)
            self.compressed = True
            if count == 0:  # nothing to compress: the same request would fail the same way
                self.step("give_up", kind=error.kind, status=error.status, reason="nothing to compress")
                return self.end(outcome.partial, error)
            self.conv = self.conv.model_copy(update={"messages": messages})
            self.step("compress", count=count, kind=error.kind, reason=decision.reason)
        elif isinstance(decision, RotateProfile):
            assert self.keys is not None and index is not None
            if error.kind == "auth":
                self.keys.mark_refresh(index)
            else:
                self.keys.cool_down(index, decision.until)
            self.step("rotate", profile=index, seconds=decision.cooldown_s, kind=error.kind, reason=decision.reason)
        else:
            assert_never(decision)
        return None


_WAITED = TurnResult(None, None)
"""`pick_key` waited for a cooling profile: pick again."""


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
    fallbacks: tuple[Fallback, ...] = (),
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
    switched on once when the provider rejects the turn with a proxy error (`context.proxy`).
    `fallbacks`: the providers to send the conversation to, in order, when the policy gives up on a
    failure of the provider's side (`FALLBACK_KINDS`); each gets the policy's attempts afresh."""
    original = conv
    conv = validate_conversation(conv, profile)
    if stream is not None and stream != conv.options.stream:
        conv = conv.model_copy(update={"options": conv.options.model_copy(update={"stream": stream})})
        original = original.model_copy(update={"options": original.options.model_copy(update={"stream": stream})})
    turn = _Turn(
        conv=conv,
        profile=profile,
        clock=clock,
        keys=AuthPool.of([keys]) if isinstance(keys, str) else keys,
        policy=policy or RetryPolicy(),
        compress_threshold=compress_threshold,
        continuation_without_tools=continuation_without_tools,
        compactor=compactor,
        proxied=gemini_proxy,
    )
    await turn.start()
    pending = list(fallbacks)
    async with httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(600.0)) as client:
        while True:
            index = await turn.pick_key()
            if index is _WAITED:
                continue
            if isinstance(index, TurnResult):
                return index
            turn.attempt += 1
            turn.step("send", attempt=turn.attempt, profile=index)
            key = None if turn.keys is None or index is None else turn.keys.key(index)
            profile = turn.profile
            status, outcome = await _send(
                client,
                turn.conv,
                profile,
                key,
                tool_shape=turn.shapes[0],
                continuation_without_tools=turn.continuation_without_tools,
            )
            if outcome.message is not None:
                turn.step("done", attempt=turn.attempt, status=status)
                return turn.end(outcome.message, None)
            error = outcome.error
            assert error is not None
            recovered = await turn.recover(error, outcome, index)
            if isinstance(recovered, TurnResult):
                return recovered
            if recovered:
                continue
            if error.status in profile.payload_too_large_statuses and error.kind == "invalid_request":
                error = error.model_copy(update={"kind": "payload_too_large"})  # the profile says so
            if error.kind == "invalid_request" and failed_generation(error, profile):
                error = error.model_copy(update={"kind": "server"})  # the model's failure: sent again
            decision = decide(
                error,
                turn.attempt,
                turn.policy,
                clock,
                rng,
                compressed=turn.compressed,
                profiles_available=len(turn.keys) if turn.keys is not None else 1,
            )
            if isinstance(decision, GiveUp) and pending and error.kind in FALLBACK_KINDS:
                turn.fall_back(pending.pop(0), original, error, decision.reason)
                continue
            ended = await turn.apply(decision, error, outcome, index)
            if ended is not None:
                return ended
