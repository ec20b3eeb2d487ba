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
| `agent`       | `agent_turn`      | an `AgentRequest` (transport, tools, cancel)  | tools run, history, outcome    |
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Sequence
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
    "agent": "agent_turn",
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
        """CONVERSATION.json → the wire request body this runtime would send to `provider`, or
        `{"refused": "<the library's reason>"}` when the library refuses to send this request
        (`refusal_of`; the same object over JSON lines). A refusal is judged against what the provider
        does: of a request the provider accepts it is `not_offered` (a limitation), never a crash."""
        ...


REFUSED = "refused"
"""The key of an `encode` answer that refuses the request: `{"refused": "<the library's reason>"}`."""


def refusal_of(answer: Any) -> str | None:
    """The library's reason when an `encode` answer is a refusal (`{"refused": reason}`), else None."""
    if isinstance(answer, dict) and set(answer) == {REFUSED}:
        return str(answer[REFUSED] or "refused")
    return None


class DecodeCapable(Protocol):
    """A runtime with the `decode` capability."""

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        """One HTTP response (body as received, possibly in several chunks) → an Outcome:
        `{"message": …}` or `{"error": …, "partial": …|null}`.

        A runtime whose `decode` also takes a `model` keyword is given the model id the request
        named (the scenario's, else the provider's usual one): a library that builds a model object
        before it reads an answer needs one; one that also takes `conversation` is given the
        scenario's CONVERSATION.json (the prompt the answer is to). The harness calls it through
        `decode_response`.

        When the connection dropped mid-body, `chunks` is a `runtime.dropped.DroppedChunks`: the
        chunks that arrived, whose iteration then raises the transport's error
        (`httpx.RemoteProtocolError`), as a socket read does."""
        ...


_TAKES: dict[tuple[Any, str], bool] = {}

DECODE_KEYWORDS: tuple[str, ...] = ("model", "conversation")
"""Keywords the harness gives a `decode` that names them: the model id the request named, and the
scenario's CONVERSATION.json (a library that needs the prompt — for a usage estimate, say — need
not invent one; None where the recording has no conversation: a real recorded call)."""


def _takes(method: Any, name: str) -> bool:
    func = getattr(method, "__func__", method)
    known = _TAKES.get((func, name))
    if known is None:
        try:
            params = list(inspect.signature(method).parameters.values())
        except (TypeError, ValueError):  # a builtin without a signature
            params = []
        # named, not `**kwargs`: a wrapper passing its arguments on to a decode without one is called as before
        known = any(p.name == name and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        _TAKES[(func, name)] = known
    return known


def decode_response(
    runtime: Any,
    provider: str,
    status: int,
    headers: dict[str, str],
    chunks: list[bytes],
    stream: bool,
    *,
    model: str | None,
    conversation: dict[str, Any] | None = None,
) -> Any:
    """`runtime.decode` of one response, with `model=` and `conversation=` where its `decode` takes
    those keywords (additions to the protocol: a runtime written without them is called as before)."""
    given = {"model": model, "conversation": conversation}
    kwargs = {k: given[k] for k in DECODE_KEYWORDS if _takes(runtime.decode, k)}
    return runtime.decode(provider, status, headers, chunks, stream, **kwargs)


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


FALLBACK_SETTING = "fallback"
"""`TurnRequest.settings["fallback"]`: the providers to fall back to, in order, each
`{"provider": name, "base_url": url, "model": name or null, "keys": [key, ...]}` — the harness
fills in where to reach each (its base URL, in or out of process) and the keys to use there."""


class TurnCapable(Protocol):
    """A runtime with the `turn` capability."""

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        """Run one turn as `request` says; its final outcome (`{"message": …}` or `{"error": …, "partial": …}`)."""
        ...


class CancelSignal:
    """The user's cancel of an `agent` turn, fired by the harness while the turn runs.

    Thread-safe: `set` may come from any thread (a loopback server's, the runtime's own event loop);
    each callback runs once, at once when the signal is already set."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._callbacks: list[Callable[[], None]] = []

    def is_set(self) -> bool:
        """Whether the cancel was fired."""
        return self._set

    def set(self) -> None:
        """Fire the cancel (once; later calls do nothing)."""
        with self._lock:
            if self._set:
                return
            self._set = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def add_callback(self, callback: Callable[[], None]) -> None:
        """Run `callback` when the signal is set (now, when it already is)."""
        with self._lock:
            if not self._set:
                self._callbacks.append(callback)
                return
        callback()


@dataclass
class AgentRequest:
    """One agent step to run: send the conversation, run the tool calls of the answer, stop there.

    The runtime sends its request through `transport` (answering for `base_url`, as in `turn`) and
    runs each tool call of the answer by `POST {tool_url}/{tool name}` with the call's arguments as
    the JSON body (through the same transport): a 200 answer's text is the tool's output, any other
    status is the tool failing. The tools' behaviour is the harness's (one may take longer than the
    runtime's tool timeout, one may fire `cancel` when it starts), and the harness sees when each
    call starts and whether the runtime stopped it. `settings` (the scenario's `input.runtime`):
    `tool_timeout_s`, `spawning_tools` (tools that start a sub-agent), `depth` (the depth this
    turn runs at), `max_depth`. `cancel` is the user cancelling: from then on nothing new starts,
    what runs is stopped, and the turn ends as `aborted`. Returns `{"status": "done" | "aborted" |
    "error", "messages": [the messages the turn adds to the history], "error": … (status error)}`.
    """

    provider: str
    conversation: dict[str, Any]
    transport: Any
    """An `httpx.BaseTransport` and `httpx.AsyncBaseTransport` in one object."""
    base_url: str
    keys: Sequence[str]
    tool_url: str
    cancel: CancelSignal
    settings: dict[str, Any] = field(default_factory=dict)


class AgentCapable(Protocol):
    """A runtime with the `agent` capability."""

    def agent_turn(self, request: AgentRequest) -> dict[str, Any]:
        """Run one agent step as `request` says; `{"status", "messages", "error"?}`."""
        ...


OPTIONAL_FIELDS: tuple[str, ...] = (
    "message.raw_stop_reason",
    "message.usage",
    "message.sources",
    "error.status",
    "error.provider_code",
    "error.retry_after_s",
    "error.message",
    "partial",
)
"""Contract paths of the normalized form that a runtime may declare it does not expose (docs/normalized-form.md).

A row compares such a path only when the runtime exposes it; a row *about* the field (its scenario's
`focus` names it) is `not_offered` for a runtime that declares it does not expose it."""


POLICY_SETTINGS: dict[str, str] = {
    "max_wait_s": "the longest wait a provider may ask for before the runtime gives up and returns the error",
    "max_attempts": "the most requests one turn sends (the first one included)",
    "backoff_growth": "how much each back-off wait grows over the one before (its factor)",
    "clamp_max_tokens": "whether a token limit above what the model or window leaves is lowered before sending",
    "compact_threshold": "the share of the context window at which a history is compacted",
    "trim_budget": "how older turns and tool results are cut to fit a token or character budget",
    "fallback_providers": "the providers a turn falls back to, in order, when its own fails on its side",
}
"""The policy settings a scenario may rest on (`basis: policy`, `policy_settings`): recommendations of
the harness, not provider facts. A runtime declares each one it has (`Declaration.policy`)."""
SETTABLE = "settable"
"""A policy value the runtime takes from the turn's `settings` (`settings["policy"]`, the scenario's)."""
UNAVAILABLE = "unavailable"
"""A policy value the runtime cannot be given (it has no such setting): its rows are `not_offered`."""
PolicyValue = str | float | bool
"""`settable`, `unavailable`, or the runtime's own fixed value (a number; a bool for on/off settings)."""


@dataclass(frozen=True)
class Declaration:
    """What a runtime under test says it offers. Undeclared (None) means offered: nothing is hidden by default.

    A Python runtime declares it with a `declaration` attribute (this class, or a dict of the same
    fields); an out-of-process runtime sends the same fields in its handshake. Rows outside the
    declaration get the `not_offered` verdict, counted apart from `fail`."""

    name: str
    version: str | None = None
    providers: frozenset[str] | None = None
    """The providers it supports; None: every provider. Other columns are `not_offered`."""
    features: frozenset[str] | None = None
    """The matrix features (catalog ids) it offers; None: every feature."""
    not_offered: frozenset[str] = frozenset()
    """Features it declares it does not offer (e.g. `auth_rotation`, `compaction`); wins over `features`."""
    exposed_fields: frozenset[str] | None = None
    """Which of `OPTIONAL_FIELDS` its outputs carry; None: all of them."""
    policy: dict[str, PolicyValue] | None = None
    """Its retry and clamp policy, per setting of `POLICY_SETTINGS`: `settable` (it follows the value a
    row hands over in `settings`), a fixed value of its own, or `unavailable` (it cannot be given one).
    A row resting on a setting the runtime did not declare is judged, but a difference there is the
    `policy` verdict ("differs from the recommended policy"), never a fail."""

    def policy_value(self, setting: str) -> PolicyValue | None:
        """What the runtime declared for a policy setting; None: undeclared."""
        return None if self.policy is None else self.policy.get(setting)

    def offers_provider(self, provider: str) -> bool:
        """True unless the runtime declared its providers and `provider` is not among them."""
        return self.providers is None or provider in self.providers

    def offers_feature(self, feature: str) -> bool:
        """True unless the runtime declared `feature` not offered (or declared its features without it)."""
        if feature in self.not_offered:
            return False
        return self.features is None or feature in self.features

    def exposes(self, path: str) -> bool:
        """True unless `path` is an optional field the runtime declared it does not expose."""
        return self.exposed_fields is None or path not in OPTIONAL_FIELDS or path in self.exposed_fields

    def unexposed_paths(self) -> tuple[str, ...]:
        """Ignore patterns for the optional fields it does not expose (under `partial` too)."""
        if self.exposed_fields is None:
            return ()
        out: list[str] = []
        for path in OPTIONAL_FIELDS:
            if path not in self.exposed_fields:
                out.append(path)
                if path.startswith("message."):
                    out.append("partial." + path.removeprefix("message."))
                elif path.startswith("error."):  # a failed message carries its error too
                    out += ["partial." + path, "message." + path]
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        """The handshake / matrix.json form: sets as sorted lists, None kept as null."""

        def _list(v: frozenset[str] | None) -> list[str] | None:
            return None if v is None else sorted(v)

        return {
            "name": self.name,
            "version": self.version,
            "providers": _list(self.providers),
            "features": _list(self.features),
            "not_offered": sorted(self.not_offered),
            "exposed_fields": _list(self.exposed_fields),
            "policy": None if self.policy is None else dict(sorted(self.policy.items())),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, default_name: str = "runtime") -> Declaration:
        """The inverse of `to_json` (unknown keys are ignored by the caller's validation, not here)."""

        def _set(v: Any) -> frozenset[str] | None:
            return None if v is None else frozenset(str(x) for x in v)

        return cls(
            name=str(data.get("name") or default_name),
            version=None if data.get("version") is None else str(data["version"]),
            providers=_set(data.get("providers")),
            features=_set(data.get("features")),
            not_offered=_set(data.get("not_offered")) or frozenset(),
            exposed_fields=_set(data.get("exposed_fields")),
            policy=_policy(data.get("policy")),
        )


def _policy(value: Any) -> dict[str, PolicyValue] | None:
    """A declared policy: each known setting `settable`, `unavailable`, a number or a bool."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError("policy must be an object of setting: value")
    out: dict[str, PolicyValue] = {}
    for key, v in value.items():
        if key not in POLICY_SETTINGS:
            raise ValueError(f"policy.{key} is not a policy setting (known: {', '.join(POLICY_SETTINGS)})")
        if v in (SETTABLE, UNAVAILABLE) or isinstance(v, bool):
            out[key] = v
        elif isinstance(v, int | float):
            out[key] = float(v)
        else:
            raise ValueError(f"policy.{key} must be {SETTABLE!r}, {UNAVAILABLE!r}, a number or a bool, not {v!r}")
    return out


def declaration_of(runtime: object, name: str | None = None) -> Declaration:
    """The runtime's `declaration` attribute (a `Declaration` or a dict of its fields); undeclared: offers all."""
    declared = getattr(runtime, "declaration", None)
    fallback = name or str(getattr(runtime, "name", "") or "runtime")
    if isinstance(declared, Declaration):
        return declared
    if isinstance(declared, dict):
        return Declaration.from_json(declared, default_name=fallback)
    return Declaration(name=fallback, version=getattr(runtime, "version", None))


def capabilities_of(runtime: object) -> frozenset[str]:
    """The capabilities `runtime` implements (the methods it has)."""
    return frozenset(cap for cap, method in CAPABILITIES.items() if callable(getattr(runtime, method, None)))


def missing_capabilities(runtime: object, needed: Sequence[str]) -> list[str]:
    """The capabilities of `needed` that `runtime` lacks, in the order given."""
    have = capabilities_of(runtime)
    return [cap for cap in needed if cap not in have]


__all__ = [
    "CAPABILITIES",
    "DECODE_KEYWORDS",
    "OPTIONAL_FIELDS",
    "POLICY_SETTINGS",
    "REFUSED",
    "SETTABLE",
    "UNAVAILABLE",
    "AgentCapable",
    "AgentRequest",
    "CancelSignal",
    "Declaration",
    "DecodeCapable",
    "EncodeCapable",
    "PolicyValue",
    "RepairCapable",
    "Runtime",
    "TurnCapable",
    "TurnClock",
    "TurnRequest",
    "capabilities_of",
    "declaration_of",
    "decode_response",
    "missing_capabilities",
    "refusal_of",
]
