"""The retry policy as a table: every error kind, with and without hints and profiles."""

from __future__ import annotations

import random

import pytest

from conformance.model import ERROR_KINDS, ProviderError
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


EVERY_KIND: dict[str, type] = {
    "invalid_request": GiveUp,
    "context_overflow": CompressAndRetry,
    "rate_limited": RetryAfter,
    "auth": GiveUp,
    "permission": GiveUp,
    "not_found": GiveUp,
    "overloaded": RetryAfter,
    "server": RetryAfter,
    "timeout": RetryAfter,
    "payload_too_large": CompressAndRetry,
    "stream_interrupted": RetryAfter,
    "content_filter": GiveUp,
}


def test_the_table_covers_every_error_kind() -> None:
    assert set(EVERY_KIND) == set(ERROR_KINDS)


@pytest.mark.parametrize("kind", sorted(EVERY_KIND))
@pytest.mark.parametrize("hint", [None, 5.0])
def test_every_kind_with_and_without_a_hint(kind: str, hint: float | None) -> None:
    decision = run(err(kind, retry_after_s=hint))
    assert type(decision) is EVERY_KIND[kind]
    if isinstance(decision, RetryAfter):
        assert decision.seconds == (hint if hint is not None else 1.0)


@pytest.mark.parametrize("kind", ["rate_limited", "overloaded", "server", "timeout", "stream_interrupted"])
def test_hints_are_honoured_up_to_the_cap(kind: str) -> None:
    assert run(err(kind, retry_after_s=120.0)) == RetryAfter(120.0, "provider's retry hint")
    assert isinstance(run(err(kind, retry_after_s=120.5)), GiveUp)


def test_billing_402_is_not_retried_even_as_a_rate_limit() -> None:
    assert isinstance(run(err("rate_limited", status=402)), GiveUp)
    assert isinstance(run(err("rate_limited", provider_code="billing_error", status=429)), GiveUp)


def test_rotation_without_a_hint_cools_down_for_the_backoff() -> None:
    assert run(err("rate_limited"), attempt=2, profiles_available=3) == RotateProfile(
        2.0, 102.0, "rate limited: profile cools down, next auth profile"
    )
    assert run(err("auth"), profiles_available=2) == RotateProfile(
        0.0, 100.0, "authentication failed: next auth profile"
    )


@pytest.mark.parametrize("kind", ["overloaded", "rate_limited", "server"])
def test_jitter_stays_within_its_bounds_through_decide(kind: str) -> None:
    policy = RetryPolicy(max_attempts=10, base_s=2.0, factor=3.0, max_backoff_s=30.0, jitter=0.2)
    rng = random.Random(11)
    clock = FakeClock(5.0)
    seen: set[float] = set()
    for attempt, nominal in [(1, 2.0), (2, 6.0), (3, 18.0), (4, 30.0), (9, 30.0)]:
        for _ in range(40):
            decision = decide(err(kind), attempt, policy, clock, rng)
            assert isinstance(decision, RetryAfter) and decision.reason == "backoff"
            assert nominal * 0.8 <= decision.seconds <= nominal * 1.2
            seen.add(decision.seconds)
    assert len(seen) > 100  # the jitter really varies
    assert clock.now() == 5.0 and clock.sleeps == []  # deciding never waits


def test_no_jitter_is_exact_and_leaves_the_rng_alone() -> None:
    rng = random.Random(4)
    state = rng.getstate()
    assert backoff(3, POLICY, rng) == 4.0
    assert rng.getstate() == state
