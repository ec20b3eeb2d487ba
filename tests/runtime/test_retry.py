"""The retry policy as a table: every error kind, with and without hints and profiles."""

from __future__ import annotations

import random

import pytest

from conformance.model import ProviderError
from conformance.runtime.clock import FakeClock
from conformance.runtime.retry import (
    CompressAndRetry,
    GiveUp,
    RetryAfter,
    RetryPolicy,
    RotateProfile,
    backoff,
    decide,
)

POLICY = RetryPolicy(max_attempts=4, base_s=1.0, factor=2.0, max_backoff_s=60.0, max_wait_s=120.0, jitter=0.0)


def err(kind: str, **kw: object) -> ProviderError:
    return ProviderError.model_validate({"kind": kind, **kw})


def run(error: ProviderError, attempt: int = 1, **kw: object) -> object:
    return decide(error, attempt, POLICY, FakeClock(100.0), random.Random(0), **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (err("rate_limited", retry_after_s=30.0), RetryAfter(30.0, "provider's retry hint")),
        (err("rate_limited"), RetryAfter(1.0, "backoff")),
        (err("overloaded"), RetryAfter(1.0, "backoff")),
        (err("server", retry_after_s=2.5), RetryAfter(2.5, "provider's retry hint")),
        (err("timeout"), RetryAfter(1.0, "backoff")),
        (err("stream_interrupted"), RetryAfter(1.0, "backoff")),
    ],
)
def test_waits(error: ProviderError, expected: object) -> None:
    assert run(error) == expected


@pytest.mark.parametrize("kind", ["invalid_request", "permission", "not_found", "content_filter", "auth"])
def test_gives_up_on_what_waiting_cannot_fix(kind: str) -> None:
    assert isinstance(run(err(kind)), GiveUp)


def test_quota_429_is_not_retried() -> None:
    decision = run(err("rate_limited", provider_code="insufficient_quota", retry_after_s=1.0))
    assert isinstance(decision, GiveUp) and "insufficient_quota" in decision.reason


def test_a_hint_longer_than_the_cap_gives_up() -> None:
    assert isinstance(run(err("rate_limited", retry_after_s=600.0)), GiveUp)


def test_attempt_cap() -> None:
    assert isinstance(run(err("overloaded"), attempt=4), GiveUp)
    assert isinstance(run(err("overloaded"), attempt=3), RetryAfter)


@pytest.mark.parametrize(
    "error",
    [
        err("payload_too_large", status=413),
        err("context_overflow"),
        err("invalid_request", provider_code="provider_rejected"),
    ],
)
def test_compress_once(error: ProviderError) -> None:
    assert isinstance(run(error), CompressAndRetry)
    assert isinstance(run(error, compressed=True), GiveUp)


def test_rotation_with_several_profiles() -> None:
    decision = run(err("rate_limited", retry_after_s=20.0), profiles_available=2)
    assert decision == RotateProfile(20.0, 120.0, "rate limited: profile cools down, next auth profile")
    assert isinstance(run(err("auth"), profiles_available=2), RotateProfile)


def test_exponential_backoff_with_bounded_jitter() -> None:
    policy = RetryPolicy(base_s=1.0, factor=2.0, max_backoff_s=10.0, jitter=0.25)
    rng = random.Random(7)
    for attempt, nominal in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (9, 10.0)]:
        for _ in range(50):
            assert nominal * 0.75 <= backoff(attempt, policy, rng) <= nominal * 1.25


def test_same_seed_same_decisions() -> None:
    policy = RetryPolicy(jitter=0.5)
    a = [backoff(n, policy, random.Random(3)) for n in range(1, 5)]
    b = [backoff(n, policy, random.Random(3)) for n in range(1, 5)]
    assert a == b
