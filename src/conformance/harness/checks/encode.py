"""The `encode` check: the runtime's wire request body for the input, against the expected body."""

from __future__ import annotations

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
    return judge(scenario, provider, expected, actual, ctx=ctx)
