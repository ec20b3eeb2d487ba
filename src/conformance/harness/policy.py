"""Policy rows: expectations that are the harness's recommendation, judged against the runtime's own policy.

A scenario with `basis: policy` names the settings its expectation follows (`policy_settings`: a wait
ceiling, back-off growth, an attempt cap, a client-side clamp; `runtime.protocol.POLICY_SETTINGS`).
What the runtime declared for each (`Declaration.policy`) decides how the row is read:

| declared            | the row                                                                  |
|---------------------|--------------------------------------------------------------------------|
| `settable`          | the row's values are handed over in `settings`: judged, `pass` or `fail` |
| a value of its own  | judged where the row's expectation holds under that value, else `policy` |
| `unavailable`       | `not_offered`: the runtime cannot be given such a value                  |
| nothing             | judged; a difference is `policy` ("differs from the recommended policy") |

Inside a policy row, what the provider asks stays a provider fact and fails as any row does: a wait
shorter than the provider's retry hint, a request the provider would reject or read otherwise, an
outcome read wrong when the requests were the expected ones (`provider_facts`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.compare import DiffEntry, ScenarioResult
from conformance.harness.context import HarnessContext, result
from conformance.runtime.protocol import SETTABLE, UNAVAILABLE, Declaration, PolicyValue
from conformance.scenarios import Scenario

_OUTCOME = ("message", "error", "partial")


def _row_policy(scenario: Scenario) -> dict[str, Any]:
    runtime = scenario.spec.input.get("runtime", {})
    policy = runtime.get("policy", {}) if isinstance(runtime, dict) else {}
    return dict(policy) if isinstance(policy, dict) else {}


def _expected(scenario: Scenario, provider: str) -> dict[str, Any]:
    expected = scenario.expected_for(provider)
    return dict(expected) if isinstance(expected, dict) else {}


def _hint(expected: dict[str, Any]) -> float | None:
    """The provider's retry hint the row's expected outcome carries (the error it gives up with)."""
    error = expected.get("error")
    hint = error.get("retry_after_s") if isinstance(error, dict) else None
    return float(hint) if isinstance(hint, int | float) else None


def _sends(expected: dict[str, Any]) -> int:
    return sum(1 for s in expected.get("trace", []) if isinstance(s, dict) and s.get("action") in ("send", "compact"))


def _max_wait_holds(value: float, scenario: Scenario, provider: str) -> bool:
    hint = _hint(_expected(scenario, provider))
    return hint is None or value < hint


def _max_attempts_holds(value: float, scenario: Scenario, provider: str) -> bool:
    expected = _expected(scenario, provider)
    sends = _sends(expected)
    # a turn that ends in the error gives up at its cap: the same cap; one that succeeds needs room enough
    return value == sends if "error" in expected and "message" not in expected else value >= sends


def _growth_holds(value: float, scenario: Scenario, provider: str) -> bool:
    floor = _expected(scenario, provider).get("backoff_growth")
    return value >= (float(floor) if isinstance(floor, int | float) else 1.0)


def _clamp_holds(value: float, scenario: Scenario, provider: str) -> bool:
    return bool(value)


def _never_holds(value: float, scenario: Scenario, provider: str) -> bool:
    """A threshold or a cutting rule of the runtime's own: the row's numbers follow the harness's."""
    return False


HOLDS: dict[str, Callable[[float, Scenario, str], bool]] = {
    "max_wait_s": _max_wait_holds,
    "max_attempts": _max_attempts_holds,
    "backoff_growth": _growth_holds,
    "clamp_max_tokens": _clamp_holds,
    "compact_threshold": _never_holds,
    "trim_budget": _never_holds,
}
"""Per policy setting: whether a row's expectation holds under a value the runtime declared as its own
(a wait ceiling below the row's hint gives up alike; an attempt cap that reaches the row's last request)."""


def recommended(scenario: Scenario, setting: str) -> str:
    """The row's recommended value of a setting, as text (for reasons)."""
    policy = _row_policy(scenario)
    value = {"backoff_growth": policy.get("factor"), "clamp_max_tokens": True}.get(setting, policy.get(setting))
    return "on" if value is True else "as the row says" if value is None else f"{value:g}"


def policy_gate(ctx: HarnessContext, scenario: Scenario, provider: str) -> ScenarioResult | None:
    """Before a policy row runs: `not_offered` when the runtime cannot be given one of its settings,
    `policy` when it declared a value of its own under which the row's expectation does not hold;
    None: run and judge it."""
    if scenario.spec.basis != "policy":
        return None
    who = ctx.runtime_name or "under test"
    for setting in scenario.spec.policy_settings:
        value: PolicyValue | None = ctx.declaration.policy_value(setting)
        if value == UNAVAILABLE:
            return result(
                scenario,
                provider,
                "not_offered",
                f"runtime {who} declares it cannot be given {setting} (this row's policy)",
                basis="policy",
            )
        if value is None or value == SETTABLE or isinstance(value, str):
            continue
        if not HOLDS[setting](float(value), scenario, provider):
            return result(
                scenario,
                provider,
                "policy",
                f"differs from the recommended policy: runtime {who} declares {setting}={value:g} "
                f"(recommended {recommended(scenario, setting)}), under which this row's expectation does not hold",
                basis="policy",
            )
    return None


def _is_outcome(path: str) -> bool:
    return any(path == p or path.startswith((p + ".", p + "[")) for p in _OUTCOME)


def _token_limit_paths(provider: str) -> frozenset[str]:
    from conformance.capabilities import get_profile
    from conformance.harness.checks.token_limit import token_limit_keys

    return token_limit_keys(get_profile(provider))


def provider_facts(res: ScenarioResult) -> list[DiffEntry]:
    """The differences of a policy row that break a provider fact, each marked with its basis. On an
    encode row (a client-side clamp) every difference but the token limit's. On a turn row: a request
    the provider reads otherwise (`request…`), one the check marked (`basis: provider`: a wait shorter
    than the provider's hint), and the outcome read wrong when the requests were as expected (when
    they were not, a different outcome follows from the different policy)."""
    requests_differ = any(e.path.startswith("requests") for e in res.diff) or not res.diff
    limits = _token_limit_paths(res.provider) if res.check == "encode" else frozenset()
    out: list[DiffEntry] = []
    for entry in res.diff:
        if res.check == "encode":
            fact = entry.path not in limits and entry.path.rsplit(".", 1)[-1] not in limits
        else:
            fact = (
                entry.basis == "provider"
                or entry.path.startswith("request[")
                or entry.path.startswith("request.")
                or (_is_outcome(entry.path) and not requests_differ)
            )
        entry.basis = "provider" if fact else "policy"
        if fact:
            out.append(entry)
    return out


def policy_verdict(declaration: Declaration, scenario: Scenario, res: ScenarioResult) -> ScenarioResult:
    """After a policy row ran: its result, with a fail that differs only from the recommended policy
    turned into `policy` where the runtime did not declare the settings the row rests on."""
    if scenario.spec.basis != "policy":
        return res
    res.basis = "policy"
    if res.verdict != "fail":
        return res
    facts = provider_facts(res)
    undeclared = [s for s in scenario.spec.policy_settings if declaration.policy_value(s) is None]
    if facts or not undeclared:
        return res
    res.verdict = "policy"
    res.fail_kind = None
    res.reason = (
        f"differs from the recommended policy ({', '.join(undeclared)} not declared by the runtime): " + res.reason
    )
    return res


__all__ = ["HOLDS", "policy_gate", "policy_verdict", "provider_facts", "recommended"]
