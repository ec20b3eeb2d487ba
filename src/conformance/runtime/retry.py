"""The retry policy: a pure decision from an error, the attempt number, the policy, a clock and
a random source (both passed in, never read inside).

- rate_limited: rotate to another auth profile when there is one; else wait for the provider's
  hint (give up when it is longer than `max_wait_s`) or back off; codes and statuses that no wait
  fixes (`insufficient_quota`, 402) give up;
- overloaded, server, timeout, stream_interrupted: wait for the hint, or back off;
- payload_too_large, context_overflow, and 400s a provider marks as a rejection of the payload
  (`provider_rejected`): compress the tool results and retry, once;
- auth: rotate to another profile when there is one, else give up;
- invalid_request, permission, not_found, content_filter: give up.

Back-off: `base_s * factor ** (attempt - 1)`, capped at `max_backoff_s`, times a jitter factor
drawn uniformly from `[1 - jitter, 1 + jitter]`. At most `max_attempts` attempts in all.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from conformance.model import ProviderError
from conformance.runtime.clock import Clock

NON_RETRYABLE_CODES: frozenset[str] = frozenset({"insufficient_quota", "billing_error", "payment_required"})
NON_RETRYABLE_STATUSES: frozenset[int] = frozenset({402})
"""Statuses no wait fixes even when classified as a rate limit (billing: OpenRouter, DeepSeek)."""
COMPRESSIBLE_CODES: frozenset[str] = frozenset({"provider_rejected"})
"""`provider_code`s of 400s that reject the payload as a whole (OpenRouter's legacy `raw: "ERROR"`)."""


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4
    base_s: float = 1.0
    factor: float = 2.0
    max_backoff_s: float = 60.0
    max_wait_s: float = 120.0
    """The longest provider-requested wait the runtime accepts; longer hints give up."""
    jitter: float = 0.25


@dataclass(frozen=True)
class RetryAfter:
    seconds: float
    reason: str
    action: Literal["wait"] = "wait"


@dataclass(frozen=True)
class CompressAndRetry:
    reason: str
    action: Literal["compress"] = "compress"


@dataclass(frozen=True)
class RotateProfile:
    cooldown_s: float
    until: float
    """Clock time until which the current profile rests."""
    reason: str
    action: Literal["rotate"] = "rotate"


@dataclass(frozen=True)
class GiveUp:
    reason: str
    action: Literal["give_up"] = "give_up"


Decision = RetryAfter | CompressAndRetry | RotateProfile | GiveUp


def backoff(attempt: int, policy: RetryPolicy, rng: random.Random) -> float:
    delay = min(policy.max_backoff_s, policy.base_s * policy.factor ** max(attempt - 1, 0))
    spread = 1.0 + policy.jitter * (2.0 * rng.random() - 1.0) if policy.jitter else 1.0
    return round(delay * spread, 3)


def decide(
    error: ProviderError,
    attempt: int,
    policy: RetryPolicy,
    clock: Clock,
    rng: random.Random,
    *,
    compressed: bool = False,
    profiles_available: int = 1,
) -> Decision:
    """What to do after attempt number `attempt` (1-based) failed with `error`."""
    code = error.provider_code or ""
    if attempt >= policy.max_attempts:
        return GiveUp(f"{attempt} attempts made (max {policy.max_attempts})")
    kind = error.kind
    if kind in ("payload_too_large", "context_overflow") or (kind == "invalid_request" and code in COMPRESSIBLE_CODES):
        if compressed:
            return GiveUp(f"{kind} even with tool results compressed")
        return CompressAndRetry(f"{kind} ({code or error.status}): compress tool results and retry once")
    if kind == "auth":
        if profiles_available > 1:
            return RotateProfile(0.0, clock.now(), "authentication failed: next auth profile")
        return GiveUp("authentication failed")
    if kind == "rate_limited":
        if code in NON_RETRYABLE_CODES or error.status in NON_RETRYABLE_STATUSES:
            return GiveUp(f"{code or error.status}: waiting will not help")
        wait = error.retry_after_s if error.retry_after_s is not None else backoff(attempt, policy, rng)
        if profiles_available > 1:
            return RotateProfile(wait, clock.now() + wait, "rate limited: profile cools down, next auth profile")
        if error.retry_after_s is not None and wait > policy.max_wait_s:
            return GiveUp(f"provider asks to wait {wait:g}s, more than max_wait_s={policy.max_wait_s:g}")
        return RetryAfter(wait, "provider's retry hint" if error.retry_after_s is not None else "backoff")
    if kind in ("overloaded", "server", "timeout", "stream_interrupted"):
        if error.retry_after_s is not None:
            if error.retry_after_s > policy.max_wait_s:
                return GiveUp(f"provider asks to wait {error.retry_after_s:g}s, more than max_wait_s")
            return RetryAfter(error.retry_after_s, "provider's retry hint")
        return RetryAfter(backoff(attempt, policy, rng), "backoff")
    return GiveUp(f"{kind} is not retryable")
