"""The runtime protocol: what the harness asks of a runtime under test, as a set of capabilities.

A runtime is any object with a `name` and one or more of the capability methods below, each JSON in
and JSON out (the shapes of docs/normalized-form.md), so an adapter around any Python runtime is a
few lines (see examples/). Every check declares the capabilities it needs; a runtime without one
gets the `skipped` verdict with the reason, never another runtime's result. The reference runtime
implements them all with this package's codecs.

| capability    | method            | the harness hands over                        | judged                         |
|---------------|-------------------|-----------------------------------------------|--------------------------------|
| `encode`      | `encode`          | a conversation + provider                     | the wire request body          |
| `decode`      | `decode`          | one HTTP response (status, headers, chunks)   | the normalized outcome         |
| `repair`      | `repair`          | a transcript + provider                       | repaired messages and actions  |
| `turn`        | `turn`            | a `TurnRequest` (transport, keys, clock, …)   | requests, waits, keys, outcome |
| `transcripts` | `load_transcript` | a JSONL file, possibly damaged                | records recovered, source kept |
| `store`       | `store_session`   | an operation script on a conversation tree    | the tree or the typed error    |
| `context`     | `context`         | a context-management request                  | its documented result          |
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

CAPABILITIES: dict[str, str] = {
    "encode": "encode",
    "decode": "decode",
    "repair": "repair",
    "turn": "turn",
    "transcripts": "load_transcript",
    "store": "store_session",
    "context": "context",
}
"""Capability → the method that provides it."""


@runtime_checkable
class Runtime(Protocol):
    """What every runtime under test has: a name. The capability protocols below add the rest."""

    name: str
    """Shown in the report as the runtime under test."""


class EncodeCapable(Protocol):
    """A runtime with the `encode` capability."""

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        """CONVERSATION.json → the wire request body this runtime would send to `provider`."""
        ...


class DecodeCapable(Protocol):
    """A runtime with the `decode` capability."""

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        """One HTTP response (body as received, possibly in several chunks) → an Outcome:
        `{"message": …}` or `{"error": …, "partial": …|null}`."""
        ...


class RepairCapable(Protocol):
    """A runtime with the `repair` capability."""

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A transcript → `{"messages": […], "actions": […], "warnings": […]}` for `provider`.
        `options`: `foreign_thinking` (`drop` | `text`), `gemini_proxy` (bool)."""
        ...


class TurnClock(Protocol):
    """The only clock a runtime may use during a turn check: waits pass instantly and are recorded."""

    def now(self) -> float:
        """Current time in seconds (monotonic; advances only by the waits)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds`: recorded, returns at once."""
        ...

    def sleep_sync(self, seconds: float) -> None:
        """For synchronous runtimes (an SDK's own retry loop)."""
        ...


@dataclass
class TurnRequest:
    """One conversation turn to run against an HTTP endpoint the harness controls.

    The runtime sends its requests through `transport` (an httpx transport for sync and async
    clients alike, answering for `base_url`), authenticates with `keys` (several keys are auth
    profiles to rotate between), follows `settings` (the scenario's `input.runtime`: retry policy,
    compression threshold, …) as far as it has such settings, and waits only through `clock`. It
    returns its final outcome: `{"message": …}`, or `{"error": …, "partial": …|null}`.
    """

    provider: str
    conversation: dict[str, Any]
    transport: Any
    """An `httpx.BaseTransport` and `httpx.AsyncBaseTransport` in one object."""
    base_url: str
    keys: Sequence[str]
    clock: TurnClock
    settings: dict[str, Any] = field(default_factory=dict)


class TurnCapable(Protocol):
    """A runtime with the `turn` capability."""

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        """Run one turn as `request` says; its final outcome (`{"message": …}` or `{"error": …, "partial": …}`)."""
        ...


def capabilities_of(runtime: object) -> frozenset[str]:
    """The capabilities `runtime` implements (the methods it has)."""
    return frozenset(cap for cap, method in CAPABILITIES.items() if callable(getattr(runtime, method, None)))


def missing_capabilities(runtime: object, needed: Sequence[str]) -> list[str]:
    """The capabilities of `needed` that `runtime` lacks, in the order given."""
    have = capabilities_of(runtime)
    return [cap for cap in needed if cap not in have]


__all__ = [
    "CAPABILITIES",
    "DecodeCapable",
    "EncodeCapable",
    "RepairCapable",
    "Runtime",
    "TurnCapable",
    "TurnClock",
    "TurnRequest",
    "capabilities_of",
    "missing_capabilities",
]
