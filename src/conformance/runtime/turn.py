"""One turn of the reference runtime: prepare → encode → send → decode → classify → decide.

Awaited end to end over an injected httpx transport, clock and random source, so a turn replays
from a cassette (or against the emulator) and a 30 s retry wait passes instantly on a fake clock.
Per-turn state (stream accumulators, the compression flag) is created fresh for every call.

Every runtime action lands in the turn's trace as plain data — `send`, `wait`, `compress`,
`rotate`, `refresh`, `give_up`, `done` — which `retry` scenarios compare with their expectation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict

from conformance.capabilities import ProviderProfile
from conformance.codecs import codec_for, decode_response
from conformance.codecs.errorkit import redact
from conformance.model import AssistantMessage, Conversation, Outcome, ProviderError
from conformance.runtime.auth import AuthPool, apply_auth
from conformance.runtime.clock import Clock
from conformance.runtime.compress import DEFAULT_THRESHOLD, compress_tool_results
from conformance.runtime.entry import validate_conversation
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.retry import CompressAndRetry, GiveUp, RetryAfter, RetryPolicy, RotateProfile, decide

Action = Literal["send", "wait", "compress", "rotate", "refresh", "give_up", "done"]


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
    client: httpx.AsyncClient, conv: Conversation, profile: ProviderProfile, key: str | None
) -> tuple[int, Outcome]:
    wire = ReferenceRuntime().wire_request(conv, profile)
    url, headers = apply_auth(wire, profile, key)
    codec = codec_for(profile)
    if wire.stream:
        async with client.stream(wire.method, url, json=wire.body, headers=headers) as response:
            if response.status_code >= 400:
                body = await response.aread()
                return response.status_code, Outcome(
                    error=codec.classify(response.status_code, dict(response.headers), body, profile)
                )
            accumulator = codec.stream(profile)  # fresh for every response
            async for chunk in response.aiter_bytes():
                accumulator.feed(chunk)
            return response.status_code, Outcome.of(accumulator.finish())
    response = await client.request(wire.method, url, json=wire.body, headers=headers)
    outcome = decode_response(codec, profile, response.status_code, dict(response.headers), response.content)
    return response.status_code, outcome


async def run_turn(
    conv: Conversation,
    profile: ProviderProfile,
    *,
    transport: httpx.AsyncBaseTransport,
    clock: Clock,
    rng: random.Random,
    keys: AuthPool | None = None,
    policy: RetryPolicy | None = None,
    compress_threshold: int = DEFAULT_THRESHOLD,
) -> TurnResult:
    """Send one conversation turn until it succeeds or the policy gives up."""
    conv = validate_conversation(conv, profile)
    policy = policy or RetryPolicy()
    trace: list[TraceStep] = []
    compressed = False
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
            status, outcome = await _send(client, conv, profile, key)
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
