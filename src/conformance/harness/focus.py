"""What a row is about, and what the runtime under test declares it offers.

A row is judged on what it is about: a runtime that declares it does not support the provider,
does not offer the feature, or does not expose a field the row is about gets `not_offered` (counted
apart from `fail`); an optional field the row is not about, and that the runtime does not expose, is
left out of the comparison (`Declaration.unexposed_paths`). Undeclared means offered: nothing is hidden by default.
"""

from __future__ import annotations

from conformance.compare import ScenarioResult
from conformance.harness.context import HarnessContext, result
from conformance.scenarios import Scenario

FEATURE_FOCUS: dict[str, tuple[str, ...]] = {
    "usage": ("message.usage",),
    "error_rate_limit": ("error.retry_after_s",),
}
"""The optional fields a feature's rows are about (a scenario's `focus:` says it for itself)."""


def focus_of(scenario: Scenario) -> tuple[str, ...]:
    """The contract paths `scenario` is about: its own `focus`, else its feature's."""
    if scenario.spec.focus is not None:
        return tuple(scenario.spec.focus)
    return FEATURE_FOCUS.get(scenario.feature, ())


def not_offered(ctx: HarnessContext, scenario: Scenario, provider: str) -> ScenarioResult | None:
    """`not_offered` naming what the runtime's declaration leaves out, or None when it offers the row."""
    decl = ctx.declaration
    who = decl.name
    if not decl.offers_provider(provider):
        return result(scenario, provider, "not_offered", f"runtime {who} does not support {provider} (its declaration)")
    if not decl.offers_feature(scenario.feature):
        return result(scenario, provider, "not_offered", f"runtime {who} declares it does not offer {scenario.feature}")
    hidden = [path for path in focus_of(scenario) if not decl.exposes(path)]
    if hidden:
        fields = ", ".join(hidden)
        return result(
            scenario, provider, "not_offered", f"this row is about {fields}, which runtime {who} does not expose"
        )
    return None
