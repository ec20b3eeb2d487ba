"""The `retry` check: the reference runtime's turn loop replayed from a multi-interaction cassette.

The scenario's input is the conversation plus the runtime settings
(`runtime: {keys: N, compress_threshold: 512, policy: {max_attempts, base_s, factor, jitter, …},
compaction: {threshold, keep_recent_user_turns, …}, gemini_proxy: true}`);
the cassette holds every request the loop sends and every answer. The loop runs on a fake clock
with a seeded random source, so waits replay instantly and back-off is deterministic. The result —
the trace of runtime actions, the final message (or the error and the partial message) and the
fake time that passed — is compared with the expected form; trace `reason`s are prose and are not
compared. Body matching proves that each retried request is the one the policy calls for (for
example, tool results compressed).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
from vcr.errors import CannotOverwriteExistingCassetteException

from conformance.capabilities import get_profile
from conformance.exceptions import ScenarioError
from conformance.harness.context import HarnessContext, judge, result, unplayed_failure
from conformance.model import AssistantMessage, ProviderError
from conformance.replay.cassette import load_cassette
from conformance.replay.player import make_vcr
from conformance.report.matrix import ScenarioResult
from conformance.runtime.auth import AuthPool
from conformance.runtime.clock import FakeClock
from conformance.runtime.context.api import turn_options
from conformance.runtime.reference import parse_conversation
from conformance.runtime.retry import RetryPolicy
from conformance.runtime.turn import TraceStep, run_turn
from conformance.scenarios import Scenario

RETRY_IGNORE = ("trace[*].reason",)
SEED = 20261122


def _canonical(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "trace": [TraceStep.model_validate(s).model_dump(exclude_none=True) for s in data.get("trace", [])]
    }
    for key, model in (("message", AssistantMessage), ("partial", AssistantMessage), ("error", ProviderError)):
        if key in data:
            value = data[key]
            out[key] = None if value is None else model.model_validate(value).model_dump(mode="json", exclude_none=True)
    if "elapsed_s" in data:
        out["elapsed_s"] = float(data["elapsed_s"])
    return out


def check_retry(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    from conformance.harness.checks import conversation_for

    cassette = scenario.cassette_path(provider, ctx.root)
    if not cassette.is_file():
        return result(scenario, provider, "missing", f"no cassette at {ctx.rel(cassette)}")
    load_cassette(cassette)  # typed errors name the file and field
    settings = dict(scenario.spec.input.get("runtime", {}))
    conv = parse_conversation(conversation_for(scenario, provider), where=f"{scenario.path}: input")
    try:
        policy = RetryPolicy(**settings.get("policy", {}))
    except TypeError as exc:
        raise ScenarioError(f"input.runtime.policy: {exc}", where=str(scenario.path)) from None
    n_keys = int(settings.get("keys", 1))
    keys = AuthPool.of([f"replay-key-{i}" for i in range(n_keys)]) if n_keys > 1 else None
    clock = FakeClock()
    rng = random.Random(SEED)
    profile = get_profile(provider)
    transport = httpx.AsyncHTTPTransport()
    context = turn_options(settings, profile, transport=transport, clock=clock, rng=rng, keys=keys, policy=policy)
    try:
        expected = _canonical(dict(scenario.expected_for(provider) or {}))
    except ValueError as exc:
        raise ScenarioError(f"expected: {exc}", where=str(scenario.path)) from None
    rel = ctx.rel(cassette)
    with make_vcr().use_cassette(str(cassette), allow_playback_repeats=False) as cass:
        try:
            turn = asyncio.run(
                run_turn(
                    conv,
                    profile,
                    transport=transport,
                    clock=clock,
                    rng=rng,
                    keys=keys,
                    policy=policy,
                    compress_threshold=int(settings.get("compress_threshold", 512)),
                    **context,
                )
            )
        except CannotOverwriteExistingCassetteException as exc:
            return result(
                scenario, provider, "fail", f"request not in cassette: {exc}", cassette=rel, expected=expected
            )
        unplayed = [i for i in range(len(cass.data)) if cass.play_counts[i] == 0]
    actual = _canonical({**turn.to_json(), "elapsed_s": clock.now()})
    failure = unplayed_failure(scenario, provider, unplayed, cassette=rel, expected=expected, actual=actual)
    if failure is not None:
        return failure
    return judge(scenario, provider, expected, actual, ctx=ctx, ignore=RETRY_IGNORE, cassette=rel)
