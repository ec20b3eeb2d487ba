"""The `encode` check: the runtime's wire request body for the input, against the expected body.

Bodies are compared as the provider reads them (`conformance.codecs.request_form`): a request the
provider reads the same passes, its differences named as notes in the reason; any difference the
provider would reject or misread is judged as before (the full diff)."""

from __future__ import annotations

from conformance.capabilities import get_profile
from conformance.codecs.request_form import failing, render_findings, request_findings
from conformance.compare import ScenarioResult
from conformance.harness.context import HarnessContext, judge, requires, result
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
    if isinstance(expected, dict) and isinstance(actual, dict) and expected != actual:
        findings = request_findings(get_profile(provider), expected, actual)
        if not failing(findings):
            reason = "the provider reads this request as the expected one; notes:\n" + render_findings(findings)
            return result(scenario, provider, "pass", reason, expected=expected, actual=actual)
    return judge(scenario, provider, expected, actual, ctx=ctx)
