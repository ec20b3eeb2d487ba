"""Encode rows judged by the provider's request rules instead of an expected body (`request_rules`).

Some rows ask what a provider would reject, not how a request is spelled: a conversation whose last
assistant turn holds calls without results, sent as it stands, is a 400 on every API that pairs
calls with results. The text a runtime puts in a result it has to make up is its own, so the body
is not compared. The runtime's request must break none of the rules the provider's rule book says it
enforces (`conformance.runtime.validate`: sourced and in scope, `pending_call` included) and still hold each string
of `expected.keeps` (e.g. a call's argument value, so dropping the call is not a way out).
"""

from __future__ import annotations

import json
from typing import Any

from conformance.capabilities import get_profile
from conformance.compare import ScenarioResult
from conformance.harness.context import result
from conformance.scenarios import Scenario


def check_request_rules(scenario: Scenario, provider: str, expected: Any, actual: Any) -> ScenarioResult:
    from conformance.codecs.reading import violation_finding
    from conformance.runtime.validate import rejected

    if not isinstance(actual, dict):
        return result(scenario, provider, "fail", "the runtime's request is not a JSON object", actual=actual)
    profile = get_profile(provider)
    keeps = [str(k) for k in (expected.get("keeps", []) if isinstance(expected, dict) else [])]
    broken = rejected(actual, profile)
    problems = [f"{v.path}: {v.message} ({v.rule})" for v, _ in broken]
    # each broken rule as a finding with its rule book source: the row's rule source (harness.classify)
    findings = [violation_finding(v, rule, profile) for v, rule in broken]
    text = json.dumps(actual, ensure_ascii=False)
    lost = [k for k in keeps if k not in text]
    if problems or lost:
        reasons = []
        if problems:
            reasons.append(f"{provider} would reject this request: " + "; ".join(problems))
        if lost:
            reasons.append("the request lost what the conversation holds: " + ", ".join(repr(k) for k in lost))
        return result(
            scenario, provider, "fail", " | ".join(reasons), expected=expected, actual=actual, requests=findings
        )
    reason = f"a request {provider} accepts, holding {', '.join(repr(k) for k in keeps) or 'the conversation'}"
    return result(scenario, provider, "pass", reason, expected=expected, actual=actual)
