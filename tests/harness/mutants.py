"""Small mutant runtimes: the reference runtime with one deliberate bug each.

Every matrix row keeps one here, and tests/harness/test_mutants.py checks that it turns its row red
and nothing else: a check that no mutant can fail proves nothing.
"""

from __future__ import annotations

import copy
from typing import Any

from conformance.runtime.protocol import TurnRequest
from conformance.runtime.reference import ReferenceRuntime


class OnlyDecodes:
    """A runtime with a single capability."""

    name = "only-decode"

    def __init__(self) -> None:
        self._inner = ReferenceRuntime()

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        return self._inner.decode(provider, status, headers, chunks, stream)


class CompressesOnlyWithoutStreaming(ReferenceRuntime):
    """The second code path lacks the compression retry (a streaming turn re-sends the same request)."""

    name = "mutant-no-stream-compression"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        if request.conversation.get("options", {}).get("stream"):
            request.settings = {**request.settings, "compress_threshold": 10**9}
        return super().turn(request)


class _OwnBackoffClock:
    """Forwards every wait as one second: the runtime's own back-off instead of the provider's hint."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def now(self) -> float:
        return float(self._inner.now())

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(1.0)

    def sleep_sync(self, seconds: float) -> None:
        self._inner.sleep_sync(1.0)


class IgnoresRetryAfter(ReferenceRuntime):
    name = "mutant-ignores-retry-after"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        request.clock = _OwnBackoffClock(request.clock)
        return super().turn(request)


class NeverRotatesKeys(ReferenceRuntime):
    name = "mutant-never-rotates"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        request.keys = list(request.keys)[:1]
        return super().turn(request)


def _drop_partial(outcome: dict[str, Any]) -> dict[str, Any]:
    return {**outcome, "partial": None} if outcome.get("partial") else outcome


class DropsThePartial(ReferenceRuntime):
    """A stream that fails keeps nothing of what arrived."""

    name = "mutant-drops-partial"

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        return _drop_partial(super().decode(provider, status, headers, chunks, stream))

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        return _drop_partial(super().turn(request))


class TracksCallsByIndex(ReferenceRuntime):
    """Parallel tool calls keyed by their stream index: calls that share index 0 collapse into one."""

    name = "mutant-calls-by-index"

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        out = copy.deepcopy(super().decode(provider, status, headers, chunks, stream))
        message = out.get("message")
        if not stream or not isinstance(message, dict) or not _index_zero_calls(chunks):
            return out
        calls = [b for b in message["content"] if b.get("type") == "tool_call"]
        if len(calls) > 1:
            first = calls[0]
            message["content"] = [b for b in message["content"] if b.get("type") != "tool_call" or b is first]
        return out


def _index_zero_calls(chunks: list[bytes]) -> bool:
    """Every streamed call says `"index": 0` (as some gateways send parallel calls)."""
    body = b"".join(chunks)
    return body.count(b'"index":0') + body.count(b'"index": 0') > 1 and b'"index":1' not in body


class RepairKeepsOrphans(ReferenceRuntime):
    """Repair forgets the rule for tool results whose call is gone."""

    name = "mutant-keeps-orphans"

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        out = super().repair(messages, provider, model, options)
        if (options or {}).get("gemini_proxy"):  # proxy mode turns every result into a user turn
            return out
        kept = {m.get("tool_call_id") for m in out["messages"] if m.get("role") == "tool_result"}
        orphans = [m for m in messages if m.get("role") == "tool_result" and m.get("tool_call_id") not in kept]
        out["messages"] = [*out["messages"], *orphans]
        out["actions"] = [a for a in out["actions"] if a.get("rule") != "orphaned_result"]
        return out


class TranscriptStopsAtDamage(ReferenceRuntime):
    """Loading a JSONL transcript gives up at the first damaged line."""

    name = "mutant-stops-at-damage"

    def load_transcript(self, path: str) -> dict[str, Any]:
        out = super().load_transcript(path)
        if out["warnings"]:
            out["messages"] = out["messages"][:1]
        return out


def _dropping(conversation: dict[str, Any]) -> dict[str, Any]:
    return {**conversation, "options": {**conversation.get("options", {}), "drop_unsupported": True}}


class DropsUnsupportedOptions(ReferenceRuntime):
    """An option the model rejects (temperature, stop) is removed silently instead of refused."""

    name = "mutant-drops-unsupported"

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        return super().encode(_dropping(conversation), provider)

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        if request.get("op") == "encode":
            request = {**request, "conversation": _dropping(request["conversation"])}
        return super().context(request, transport)


class StreamLosesRawStop(ReferenceRuntime):
    """Its stream reader loses the provider's own stop reason that its JSON reader keeps."""

    name = "mutant-stream-loses-raw-stop"

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        outcome = super().decode(provider, status, headers, chunks, stream)
        message = outcome.get("message")
        if stream and isinstance(message, dict):
            outcome = {**outcome, "message": {k: v for k, v in message.items() if k != "raw_stop_reason"}}
        return outcome
