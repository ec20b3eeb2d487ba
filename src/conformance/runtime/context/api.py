"""The `context` capability of the runtime protocol: one JSON request, one JSON answer.

Operations (`request["op"]`):

- ``count`` — ``{conversation, provider, exact?}`` → ``{estimate, count: {tokens, source, baseline,
  estimated}, exact}`` (`exact` is null where no tokenizer is to be had, or when the request says
  ``exact: false``: loading a 200k-token vocabulary costs more than the rest of the count);
- ``trim`` — ``{conversation, provider, settings: {max_history_tokens, keep_recent_user_turns,
  caps}}`` → ``{messages, actions, body, tokens_before, tokens_after}``: the trimmed history and
  the wire body the runtime sends for it;
- ``compact`` — ``{session: PATH, provider, model?, settings: {keep_recent_user_turns,
  max_summary_tokens, summary_input_tokens, max_shrinks, context_window}, policy?: {…},
  api_key?}`` → ``{summarized, error: null | {kind, message, provider_error?}, trace,
  elapsed_s}``: the session file compacted in place; the summarisation requests go through the
  in-process `transport` the harness hands over (a replayed cassette), on a fake clock;
- ``encode`` — ``{conversation, provider}`` → ``{body}``, or ``{error: {kind: unsupported_feature,
  where, message}}`` when the request asks for a feature the model lacks (`compat`);
- ``recover`` — ``{session: PATH}`` → ``{actions}``: the session file made consistent after a crash;
- ``append`` — ``{session: PATH, messages, settings: {max_tool_result_chars}}`` → ``{}``.

Bad requests raise `InputError` naming the field.
"""

from __future__ import annotations

import random
from typing import Any

import httpx

from conformance.capabilities import ProviderProfile, get_profile
from conformance.exceptions import InputError, UnsupportedFeatureError
from conformance.runtime import aio
from conformance.runtime.auth import AuthPool
from conformance.runtime.clock import Clock, FakeClock
from conformance.runtime.context.compact import CompactSettings, Summarizer, turn_compactor
from conformance.runtime.context.session import Writer, append_messages, compact_session, recover_session
from conformance.runtime.context.tokens import count_tokens, estimate_tokens, exact_tokens
from conformance.runtime.context.trim import TrimSettings, trim_history
from conformance.runtime.retry import RetryPolicy
from conformance.runtime.transcripts import save_transcript

SEED = 20261122
TURN_SETTINGS = ("compaction", "history_trimming", "gemini_proxy")
"""Keys of a `retry` scenario's `input.runtime` that `turn_options` reads."""


def turn_options(
    settings: dict[str, Any],
    profile: ProviderProfile,
    *,
    transport: httpx.AsyncBaseTransport,
    clock: Clock,
    rng: random.Random,
    keys: AuthPool | str | None,
    policy: RetryPolicy,
) -> dict[str, Any]:
    """`run_turn` keyword arguments for the context settings of a turn: `history_trimming:
    {max_history_tokens, keep_recent_user_turns, caps}` (the history trimmed before it is sent),
    `compaction: {threshold, keep_recent_user_turns, max_summary_tokens, context_window, …}`
    (automatic compaction and compact-then-retry on overflow, summarising through the turn's own
    `transport`, clock, keys and policy) and `gemini_proxy: true` (proxy mode from the start)."""
    out: dict[str, Any] = {}
    compaction: CompactSettings | None = None
    trimming: TrimSettings | None = None
    try:
        if "compaction" in settings:
            compaction = CompactSettings.from_json(dict(settings["compaction"]))
        if "history_trimming" in settings:
            trimming = TrimSettings.from_json(dict(settings["history_trimming"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"bad context settings: {exc}", where="input.runtime") from None
    if compaction is not None or trimming is not None:
        via = Summarizer(profile, transport, clock, rng, keys=keys, policy=policy)
        out["compactor"] = turn_compactor(compaction, via, trimming)
    if settings.get("gemini_proxy"):
        out["gemini_proxy"] = True
    return out


def _field(request: dict[str, Any], name: str) -> Any:
    if name not in request:
        raise InputError(f"missing field {name!r}", where=f"context request ({request.get('op')})")
    return request[name]


def handle(
    request: dict[str, Any],
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    writer: Writer = save_transcript,
) -> dict[str, Any]:
    """Answer one `context` request (see the module doc). `transport` carries the summarisation
    requests (default: httpx's own, to the provider's URL); `writer` replaces the session writer."""
    from conformance.model.parse import parse_conversation, parse_messages
    from conformance.runtime.prepare import wire_request

    op = request.get("op")
    if op == "count":
        conv = parse_conversation(_field(request, "conversation"), where="context.conversation")
        return {
            "estimate": estimate_tokens(conv.messages, conv.tools),
            "count": count_tokens(conv.messages, conv.tools).to_json(),
            "exact": exact_tokens(conv.messages, get_profile(_field(request, "provider")), conv.model)
            if request.get("exact", True)
            else None,
        }
    if op == "trim":
        conv = parse_conversation(_field(request, "conversation"), where="context.conversation")
        try:
            settings = TrimSettings.from_json(dict(_field(request, "settings")))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"bad trim settings: {exc}", where="context.settings") from None
        trimmed = trim_history(conv.messages, settings)
        profile = get_profile(_field(request, "provider"))
        body = wire_request(conv.model_copy(update={"messages": trimmed.messages}), profile).body
        return {**trimmed.to_json(), "body": body}
    if op == "compact":
        try:
            settings_c = CompactSettings.from_json(dict(request.get("settings", {})))
            policy = RetryPolicy(**request.get("policy", {}))
        except (TypeError, ValueError) as exc:
            raise InputError(f"bad compaction settings: {exc}", where="context.settings") from None
        clock = FakeClock()
        via = Summarizer(
            get_profile(_field(request, "provider")),
            transport or httpx.AsyncHTTPTransport(),
            clock,
            random.Random(SEED),
            keys=request.get("api_key"),
            policy=policy,
        )
        done = aio.run(
            compact_session(_field(request, "session"), settings_c, request.get("model"), via, writer=writer)
        )
        return {**done.to_json(), "elapsed_s": clock.now()}
    if op == "encode":
        conv = parse_conversation(_field(request, "conversation"), where="context.conversation")
        try:
            body = wire_request(conv, get_profile(_field(request, "provider"))).body
        except UnsupportedFeatureError as exc:
            return {"error": {"kind": "unsupported_feature", "where": exc.where, "message": str(exc)}}
        return {"body": body}
    if op == "recover":
        return {"actions": recover_session(_field(request, "session"), writer=writer)}
    if op == "append":
        messages = parse_messages(_field(request, "messages"), where="context.messages")
        cap = request.get("settings", {}).get("max_tool_result_chars")
        append_messages(_field(request, "session"), messages, max_tool_result_chars=cap)
        return {}
    raise InputError(f"unknown op {op!r} (count, trim, encode, compact, recover, append)", where="context request")
