"""Mutant runtimes for the retry-policy boundary rows: the reference turn loop with one realistic
policy bug each (a constant back-off, one attempt too many, a 400 retried, a long hint waited out,
keys rotated on overload, a proxy's `tool_type` rejection not retried in Gemini's shapes). Each bug is planted by swapping the loop's decision function or its
settings for the length of one turn.

Each mutant declares the policy it breaks (`Declaration.policy`: it says it follows the row's setting),
so a policy row judges it and turns red; `undeclared(mutant)` is the same bug in a runtime that
declares no policy, which a policy row reads as "differs from the recommended policy", never red."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from conformance.model import ProviderError
from conformance.runtime import retry, turn
from conformance.runtime.clock import Clock
from conformance.runtime.protocol import POLICY_SETTINGS, SETTABLE, Declaration, TurnRequest
from conformance.runtime.reference import ReferenceRuntime

Decide = Callable[..., retry.Decision]


@contextmanager
def _deciding(wrap: Callable[[Decide], Decide]) -> Iterator[None]:
    with mock.patch.object(turn, "decide", wrap(retry.decide)):
        yield


def declaring(name: str, **policy: Any) -> Declaration:
    """A declaration of `policy` (every other setting settable, as the reference declares them)."""
    return Declaration(name=name, policy={**dict.fromkeys(POLICY_SETTINGS, SETTABLE), **policy})


def undeclared(mutant: type[ReferenceRuntime]) -> ReferenceRuntime:
    """The mutant's bug in a runtime that declares no policy at all."""

    class Undeclared(mutant):  # type: ignore[valid-type,misc]
        @property
        def declaration(self) -> Declaration:
            return Declaration(name=self.name)

    return Undeclared()


def _policy(request: TurnRequest, **changes: Any) -> None:
    request.settings = {**request.settings, "policy": {**request.settings.get("policy", {}), **changes}}


class ConstantBackoff(ReferenceRuntime):
    """Backs off a constant twice the base (2 s) instead of doubling: factor 1."""

    name = "mutant-constant-backoff"

    @property
    def declaration(self) -> Declaration:
        return declaring(self.name, backoff_growth=SETTABLE, max_attempts=SETTABLE)

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        base = float(request.settings.get("policy", {}).get("base_s", 1.0))
        _policy(request, factor=1.0, base_s=2 * base)
        return super().turn(request)


class OneAttemptTooMany(ReferenceRuntime):
    """Counts retries against `max_attempts` instead of attempts: one request more than allowed."""

    name = "mutant-one-attempt-too-many"

    @property
    def declaration(self) -> Declaration:
        return declaring(self.name, max_attempts=SETTABLE)

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        _policy(request, max_attempts=int(request.settings.get("policy", {}).get("max_attempts", 4)) + 1)
        return super().turn(request)


class RetriesInvalidRequests(ReferenceRuntime):
    """Treats every error as transient: what the policy gives up on (a 400 invalid request) is backed off and sent again."""

    name = "mutant-retries-400"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        def wrap(decide: Decide) -> Decide:
            def decide_all(
                error: ProviderError,
                attempt: int,
                policy: retry.RetryPolicy,
                clock: Clock,
                rng: random.Random,
                **kw: Any,
            ) -> retry.Decision:
                decision = decide(error, attempt, policy, clock, rng, **kw)
                if isinstance(decision, retry.GiveUp) and attempt < policy.max_attempts:
                    return retry.RetryAfter(retry.backoff(attempt, policy, rng), "backoff")
                return decision

            return decide_all

        with _deciding(wrap):
            return super().turn(request)


class WaitsOutLongHints(ReferenceRuntime):
    """Has no ceiling on a provider's hint: waits 300 s when the policy allows 60 s."""

    name = "mutant-no-max-wait"

    @property
    def declaration(self) -> Declaration:
        return declaring(self.name, max_wait_s=SETTABLE)

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        _policy(request, max_wait_s=10.0**9)
        return super().turn(request)


class RotatesOnOverload(ReferenceRuntime):
    """Moves to the next auth profile on any retryable error, overload included."""

    name = "mutant-rotates-on-overload"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        def wrap(decide: Decide) -> Decide:
            def decide_rotating(
                error: ProviderError,
                attempt: int,
                policy: retry.RetryPolicy,
                clock: Clock,
                rng: random.Random,
                **kw: Any,
            ) -> retry.Decision:
                decision = decide(error, attempt, policy, clock, rng, **kw)
                if isinstance(decision, retry.RetryAfter) and kw.get("profiles_available", 1) > 1:
                    return retry.RotateProfile(decision.seconds, clock.now() + decision.seconds, "rotate on any error")
                return decision

            return decide_rotating

        with _deciding(wrap):
            return super().turn(request)


class _Shapes(ReferenceRuntime):
    shapes: tuple[str, ...] = ()

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with mock.patch.object(turn, "TOOL_SHAPES", self.shapes):
            return super().turn(request)


class NoToolTypeRetry(_Shapes):
    """Returns a proxy's `tool_type` 400 as it is: tools are only ever declared OpenAI-style."""

    name = "mutant-no-tool-type-retry"
    shapes = ("function",)


class SnakeCaseDeclarationsOnly(_Shapes):
    """Falls back to `function_declarations` but never to `functionDeclarations`."""

    name = "mutant-snake-case-declarations-only"
    shapes = ("function", "function_declarations")


class FailedGenerationIsFinal(ReferenceRuntime):
    """Takes Cerebras's "Tool is not present in the tools list" 400 for a bad request and gives up."""

    name = "mutant-failed-generation-final"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with mock.patch.object(turn, "failed_generation", return_value=False):
            return super().turn(request)


class CompressesAgain(ReferenceRuntime):
    """Forgets that it already compressed: every payload rejection compresses and retries again."""

    name = "mutant-compresses-again"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        def wrap(decide: Decide) -> Decide:
            def decide_uncompressed(*args: Any, **kw: Any) -> retry.Decision:
                return decide(*args, **{**kw, "compressed": False})

            return decide_uncompressed

        with _deciding(wrap):
            return super().turn(request)


class CompressesEveryBadRequest(ReferenceRuntime):
    """Takes any 400 for an oversized payload: compresses tool results and retries."""

    name = "mutant-compresses-every-400"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        def wrap(decide: Decide) -> Decide:
            def decide_compressing(error: ProviderError, *args: Any, **kw: Any) -> retry.Decision:
                if error.kind == "invalid_request" and not kw.get("compressed"):
                    return retry.CompressAndRetry("any 400: compress")
                return decide(error, *args, **kw)

            return decide_compressing

        with _deciding(wrap):
            return super().turn(request)
