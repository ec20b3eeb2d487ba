"""The checks a scenario can name, registered by name. Each returns a `ScenarioResult`.

Each check lives in its own module; a third party adds one with `register_check(name, fn)`, after
which scenario files may name it in `check:`.
"""

from __future__ import annotations

import traceback

from conformance.compare import ScenarioResult
from conformance.exceptions import InputError
from conformance.harness.checks.agent import check_agent
from conformance.harness.checks.context import check_context
from conformance.harness.checks.decode import check_decode
from conformance.harness.checks.encode import check_encode
from conformance.harness.checks.generated import check_generated
from conformance.harness.checks.handoff import check_handoff
from conformance.harness.checks.retry import check_retry
from conformance.harness.checks.store import check_store
from conformance.harness.checks.transcript import check_repair, check_transcript
from conformance.harness.classify import classify
from conformance.harness.context import Check, HarnessContext, result
from conformance.harness.focus import not_offered
from conformance.harness.guard import guarded, safe_result
from conformance.harness.policy import policy_gate, policy_verdict
from conformance.scenarios import Scenario, register_check_name

CHECK_REGISTRY: dict[str, Check] = {}
WHOLE_CORPUS_CHECKS: set[str] = set()
"""Checks that read every provider's cassettes for each provider (tens of milliseconds a row, and
work shared across providers): a parallel run gives each such scenario to one worker, first."""


def register_check(name: str, check: Check, *, whole_corpus: bool = False) -> None:
    """Make `check` available to scenario files as `check: <name>`; `whole_corpus`: it reads every
    provider's cassettes, not only its own row's."""
    CHECK_REGISTRY[name] = check
    register_check_name(name)
    if whole_corpus:
        WHOLE_CORPUS_CHECKS.add(name)
    else:
        WHOLE_CORPUS_CHECKS.discard(name)


for _name, _check in (
    ("decode", check_decode),
    ("encode", check_encode),
    ("repair", check_repair),
    ("transcript", check_transcript),
    ("retry", check_retry),
    ("context", check_context),
    ("store", check_store),
    ("agent", check_agent),
):
    register_check(_name, _check)
register_check("generated", check_generated, whole_corpus=True)
register_check("handoff", check_handoff, whole_corpus=True)


def run_check(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    """Run one scenario × provider. Unsupported is declared; misuse and crashes are `error`. The
    result names its evidence (wire and rule source) and, when not green, its class (`harness.classify`)."""
    return classify(_run_check(scenario, provider, ctx), scenario, ctx.root)


def _run_check(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    entry = scenario.entry(provider)
    if entry is not None and entry.unsupported:
        res = result(scenario, provider, "unsupported", entry.unsupported)
        res.scenario_path = ctx.rel(scenario.path)
        return res
    declined = not_offered(ctx, scenario, provider)
    if declined is None:
        declined = policy_gate(ctx, scenario, provider)
    if declined is not None:
        declined.scenario_path = ctx.rel(scenario.path)
        return declined
    if scenario.check != "decode" and scenario.spec.providers and entry is None:
        return result(scenario, provider, "missing", "this scenario does not cover this provider yet")
    check = CHECK_REGISTRY.get(scenario.check)
    if check is None:
        return result(scenario, provider, "error", f"no check named {scenario.check!r} is available")
    try:
        res = check(scenario, provider, guarded(ctx))
    except InputError as exc:
        res = result(scenario, provider, "error", _describe(exc, typed=False))
    except Exception as exc:  # a crash in the runtime under test is a verdict, with its type and traceback
        res = result(
            scenario, provider, "error", _describe(exc, typed=True), fail_kind="crash", traceback=_traceback(exc)
        )
    res.scenario_path = ctx.rel(scenario.path)
    return safe_result(policy_verdict(ctx.declaration, scenario, res))


TRACEBACK_LINES = 60
"""How much of a runtime's traceback a result keeps (its last lines: where it raised)."""


def _traceback(exc: BaseException) -> str:
    remote = getattr(exc, "remote_traceback", None)  # a runtime in another process sends its own
    if isinstance(remote, str) and remote:
        return "\n".join(remote.splitlines()[-TRACEBACK_LINES:])
    try:
        lines = "".join(traceback.format_exception(exc)).splitlines()
    except Exception:  # an exception that cannot even be formatted
        return f"{type(exc).__name__} (its traceback cannot be formatted)"
    if len(lines) > TRACEBACK_LINES:
        lines = [f"… {len(lines) - TRACEBACK_LINES} lines left out", *lines[-TRACEBACK_LINES:]]
    return "\n".join(lines)


def _describe(exc: BaseException, *, typed: bool) -> str:
    """The exception as one reason; an exception whose `str` itself raises is named by its type."""
    try:
        text = str(exc)
    except Exception:
        text = "(its message cannot be read)"
    return f"{type(exc).__name__}: {text}" if typed else text


__all__ = ["CHECK_REGISTRY", "WHOLE_CORPUS_CHECKS", "register_check", "run_check"]
