"""The reference runtime: the `Runtime` protocol implemented with this package's codecs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.capabilities import ProviderProfile, get_profile
from conformance.codecs import WireRequest, codec_for, decode_response
from conformance.codecs.base import is_stream
from conformance.exceptions import InputError, UnknownProviderError
from conformance.model import Conversation, Outcome, ProviderError
from conformance.model.parse import parse_conversation, parse_messages
from conformance.runtime.compress import DEFAULT_THRESHOLD
from conformance.runtime.dropped import drop_error, received
from conformance.runtime.protocol import POLICY_SETTINGS, SETTABLE, AgentRequest, Declaration, TurnRequest

TURN_SEED = 20261122
"""The default seed of the reference turn loop's back-off jitter (a setting can change it)."""


def _dropped(
    profile: ProviderProfile, headers: Mapping[str, str], arrived: list[bytes], stream: bool, error: BaseException
) -> Outcome:
    """A successful answer whose connection dropped mid-body: a stream is read up to the drop (an
    answer whose terminal event had arrived stands; otherwise `stream_interrupted` with what arrived
    as the partial); a JSON body cut short holds no answer (`stream_interrupted`, no partial)."""
    said = f"the connection dropped mid-body ({error})"
    codec = codec_for(profile)
    if not is_stream(codec, headers, stream):
        return Outcome(error=ProviderError(kind="stream_interrupted", message=said))
    acc = codec.stream(profile, events=False)
    for chunk in arrived:
        acc.feed(chunk)
    outcome = Outcome.of(acc.finish())
    if outcome.error is not None and outcome.error.kind == "stream_interrupted":
        outcome.error.message = said
    return outcome


def fallbacks_of(raw: Any) -> tuple[Any, ...]:
    """`settings["fallback"]` (`runtime.protocol.FALLBACK_SETTING`) as the turn loop's `Fallback`s."""
    from conformance.runtime.turn import Fallback

    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InputError("a list of {provider, base_url, model, keys}", where="settings.fallback")
    out = []
    for i, entry in enumerate(raw):
        where = f"settings.fallback[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("provider"), str):
            raise InputError("each fallback is {provider, base_url, model, keys}", where=where)
        try:
            profile = get_profile(entry["provider"])
        except UnknownProviderError as exc:
            raise InputError(str(exc), where=f"{where}.provider") from None
        if isinstance(entry.get("base_url"), str):
            profile = profile.with_base_url(entry["base_url"])
        keys = entry.get("keys") or []
        model = entry.get("model")
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise InputError("keys is a list of strings", where=f"{where}.keys")
        out.append(Fallback(profile, model if isinstance(model, str) else None, tuple(keys)))
    return tuple(out)


class ReferenceRuntime:
    name = "reference"

    @property
    def declaration(self) -> Declaration:
        """It offers everything, and takes every policy setting from the turn's `settings["policy"]`."""
        return Declaration(name=self.name, policy=dict.fromkeys(POLICY_SETTINGS, SETTABLE))

    def wire_request(self, conversation: Conversation, profile: ProviderProfile) -> WireRequest:
        """prepare (repair, schemas, budget, options) → the dialect's encoder."""
        from conformance.runtime.prepare import wire_request

        return wire_request(conversation, profile)

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        profile = get_profile(provider)
        return self.wire_request(parse_conversation(conversation), profile).body

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        profile = get_profile(provider)
        arrived = received(chunks)  # a dropped connection raises after these (`runtime.dropped`)
        dropped = drop_error(chunks)
        if dropped is not None and status < 400:
            return _dropped(profile, headers, arrived, stream, dropped).to_json()
        outcome = decode_response(
            codec_for(profile), profile, status, headers, b"".join(arrived), stream_hint=stream, chunks=arrived
        )
        return outcome.to_json()

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        from conformance.runtime.repair import RepairOptions, repair

        try:
            opts = RepairOptions(**(options or {}))
        except TypeError as exc:
            raise InputError(str(exc), where="repair options") from None
        parsed = parse_messages(messages)  # fresh objects, owned here: no defensive copy needed
        return repair(parsed, get_profile(provider), model=model, options=opts, copy_input=False).to_json()

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        """One turn of the reference turn loop (`runtime.turn.run_turn`) over the harness's transport.

        Settings read: `policy` (RetryPolicy fields), `compress_threshold`, `continuation_without_tools`,
        `fallback` (the providers to fall back to: `runtime.protocol.FALLBACK_SETTING`), `seed` (the
        back-off jitter's random source). Several keys are auth profiles to rotate between.
        The outcome carries the loop's `trace` too, for people; the harness judges what it observes."""
        import random

        from conformance.runtime import aio
        from conformance.runtime.auth import AuthPool
        from conformance.runtime.context.api import turn_options
        from conformance.runtime.retry import RetryPolicy
        from conformance.runtime.turn import run_turn

        settings = request.settings
        try:
            policy = RetryPolicy(**settings.get("policy", {}))
        except TypeError as exc:
            raise InputError(str(exc), where="settings.policy") from None
        keys = AuthPool.of(list(request.keys)) if request.keys else None
        profile = get_profile(request.provider).with_base_url(request.base_url)
        fallbacks = fallbacks_of(settings.get("fallback"))
        rng = random.Random(settings.get("seed", TURN_SEED))
        # history trimming, compaction and Gemini-proxy mode, from the same settings
        context = turn_options(
            settings, profile, transport=request.transport, clock=request.clock, rng=rng, keys=keys, policy=policy
        )
        result = aio.run(
            run_turn(
                parse_conversation(request.conversation),
                profile,
                transport=request.transport,
                clock=request.clock,
                rng=rng,
                keys=keys,
                policy=policy,
                compress_threshold=int(settings.get("compress_threshold", DEFAULT_THRESHOLD)),
                continuation_without_tools=bool(settings.get("continuation_without_tools", False)),
                fallbacks=fallbacks,
                **context,
            )
        )
        return result.to_json()

    def agent_turn(self, request: AgentRequest) -> dict[str, Any]:
        """One agent step (`runtime.agent.run_agent_step`): the turn sent through the harness's
        transport, its tool calls run against the harness's tools, the user's cancel honoured."""
        from conformance.runtime import aio
        from conformance.runtime.agent import run_agent_step

        profile = get_profile(request.provider).with_base_url(request.base_url)
        return aio.run(
            run_agent_step(
                parse_conversation(request.conversation),
                profile,
                transport=request.transport,
                key=request.keys[0] if request.keys else None,
                tool_url=request.tool_url,
                cancel=request.cancel,
                settings=dict(request.settings),
            )
        )

    def load_transcript(self, path: str) -> dict[str, Any]:
        """A JSONL transcript → `{"messages": […], "warnings": […]}` (warnings name the line)."""
        from conformance.model import dump
        from conformance.runtime.transcripts import load_transcript

        loaded = load_transcript(path)
        return {"messages": [dump(m) for m in loaded.messages], "warnings": list(loaded.warnings)}

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        """The `context` capability: token counts, trimming, compaction (see `runtime.context.api`);
        `transport` (an httpx transport) carries the summarisation requests of `compact`."""
        from conformance.runtime.context.api import handle

        return handle(request, transport=transport)

    def store_session(self, backend: str, directory: str, options: dict[str, Any] | None = None) -> Any:
        """The `store` capability: a session over `conformance.store` (see docs/store.md)."""
        from conformance.store.session import StoreSession

        return StoreSession(backend, directory, options)
