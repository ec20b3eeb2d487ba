"""The `encode` check: the runtime's wire request body for the input, against the expected body.

Bodies are compared as the provider reads them (`conformance.codecs.request_form`): a request the
provider reads the same passes, its differences named as notes in the reason; the differences the
provider would reject or misread are the row's typed diff (never the spellings it reads alike), and
every finding is listed in the result's `requests`."""

from __future__ import annotations

from conformance.capabilities import get_profile
from conformance.codecs.request_form import failing, render_findings, request_findings
from conformance.compare import ScenarioResult, is_ignored
from conformance.harness.context import HarnessContext, finding_entry, judge, requires, result
from conformance.scenarios import Scenario


def check_encode(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    """Encode the input for the provider and compare with the expected wire body."""
    skipped = requires(ctx, scenario, provider, "encode")
    if skipped is not None:
        return skipped
    expected = scenario.expected_for(provider)
    if expected is None:
        return result(scenario, provider, "missing", "no expected wire request for this provider")
    actual = ctx.runtime.encode(scenario.conversation(provider), provider)
    judged = judge(scenario, provider, expected, actual, ctx=ctx)
    if judged.verdict == "pass" or not isinstance(expected, dict) or not isinstance(actual, dict):
        return judged
    findings = request_findings(get_profile(provider), expected, actual)
    ignored = (*scenario.spec.ignore, *ctx.declaration.unexposed_paths())
    bad = [f for f in failing(findings) if not is_ignored(f.path, ignored)]
    if not bad:
        reason = "the provider reads this request as the expected one; notes:\n" + render_findings(findings)
        return result(scenario, provider, "pass", reason, expected=expected, actual=actual, requests=findings)
    n = len(bad)
    reason = f"{n} difference{'s' if n > 1 else ''} {provider} would reject or misread:\n" + render_findings(bad)
    entries = [finding_entry("", f) for f in bad]
    return result(scenario, provider, "fail", reason, expected=expected, actual=actual, diff=entries, requests=findings)
