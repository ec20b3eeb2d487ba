"""The `encode` check: the runtime's wire request body for the input, against the expected body.

Bodies are compared as the provider reads them (`conformance.codecs.request_form`): a request the
provider reads the same passes, its differences named as notes in the reason; the differences the
provider would reject or misread are the row's typed diff (never the spellings it reads alike), and
every finding is listed in the result's `requests`. Where the conversation asks for no stream, how
the answer is delivered (`stream`, `stream_options`: the table's `delivery` keys) is the runtime's
choice and a difference there is a note; a stream that was asked for must be asked of the provider.

When the conversation asks for no token limit, the limit a runtime chooses is judged once, by the
rows that say so (`judge_token_limit`, `harness.checks.token_limit`), and left out of every other
row's comparison. Rows whose conversation asks for more than the context window leaves
(`token_limit_room`) judge the limit sent against what the window leaves, with a tolerance, and
compare the rest of the body. Rows about what a provider rejects (`request_rules`) are judged by
its request rules instead of an expected body (`harness.checks.request_rules`)."""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile, get_profile
from conformance.codecs.reading import read_request
from conformance.codecs.request_form import RequestFinding, failing, render_findings, request_findings
from conformance.compare import ScenarioResult, is_ignored
from conformance.harness.checks.request_rules import check_request_rules
from conformance.harness.checks.token_limit import token_limit_findings, window_findings, without_token_limit
from conformance.harness.context import HarnessContext, finding_entry, judge, requires, result
from conformance.runtime.protocol import refusal_of
from conformance.scenarios import Scenario


def check_encode(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    """Encode the input for the provider and compare with the expected wire body."""
    skipped = requires(ctx, scenario, provider, "encode")
    if skipped is not None:
        return skipped
    expected = scenario.expected_for(provider)
    if expected is None:
        return result(scenario, provider, "missing", "no expected wire request for this provider")
    conversation = scenario.conversation(provider)
    actual = ctx.runtime.encode(conversation, provider)
    refused = refusal_of(actual)
    if refused is not None:  # the expected body is one the provider accepts: refusing it is a limitation
        rules = " (the row asks for a request it accepts)" if scenario.spec.request_rules else ""
        why = f"the runtime refuses a request {provider} accepts{rules}: {refused}"
        return result(scenario, provider, "not_offered", why, expected=expected, actual=actual)
    if scenario.spec.request_rules:
        return check_request_rules(scenario, provider, expected, actual)
    profile = get_profile(provider)
    room = scenario.spec.token_limit_room
    if room is not None or (conversation.get("options") or {}).get("max_tokens") is None:
        model = conversation.get("model") or profile.default_model
        if room is not None:
            limit = window_findings(actual, profile, model, room)
        else:
            limit = token_limit_findings(actual, profile, model) if scenario.spec.judge_token_limit else []
        if limit:
            n = len(limit)
            reason = f"{n} token-limit finding{'s' if n > 1 else ''} {provider} would reject:\n"
            reason += render_findings(limit)
            entries = [finding_entry("", f) for f in limit]
            return result(
                scenario, provider, "fail", reason, expected=expected, actual=actual, diff=entries, requests=limit
            )
        expected, actual = without_token_limit(expected, profile), without_token_limit(actual, profile)
    judged = judge(scenario, provider, expected, actual, ctx=ctx)
    if judged.verdict == "pass" or not isinstance(expected, dict) or not isinstance(actual, dict):
        return judged
    asked_stream = bool((conversation.get("options") or {}).get("stream"))
    findings = broken_rules(profile, expected, actual)
    findings += request_findings(profile, expected, actual, delivery_free=not asked_stream)
    ignored = (*scenario.spec.ignore, *ctx.declaration.unexposed_paths())
    bad = [f for f in failing(findings) if not is_ignored(f.path, ignored)]
    if not bad:
        reason = "the provider reads this request as the expected one; notes:\n" + render_findings(findings)
        return result(scenario, provider, "pass", reason, expected=expected, actual=actual, requests=findings)
    n = len(bad)
    reason = f"{n} difference{'s' if n > 1 else ''} {provider} would reject or misread:\n" + render_findings(bad)
    entries = [finding_entry("", f) for f in bad]
    return result(scenario, provider, "fail", reason, expected=expected, actual=actual, diff=entries, requests=findings)


def broken_rules(profile: ProviderProfile, expected: Any, actual: Any) -> list[RequestFinding]:
    """How the provider reads the actual body (its rule book, `codecs.reading.read_request`), less
    what it finds in the expected body too: a sourced rule the actual body alone breaks is a failing
    finding (the provider answers such a request with a 4xx, whatever else the two bodies share)."""
    if not isinstance(actual, dict):
        return []
    kept = {(f.path, f.fact) for f in read_request(expected, profile)} if isinstance(expected, dict) else set()
    return [f for f in read_request(actual, profile) if (f.path, f.fact) not in kept]
