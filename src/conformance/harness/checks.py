"""The checks a scenario can name, registered by name. Each returns a `ScenarioResult`."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from conformance.capabilities import get_profile
from conformance.exceptions import InputError, ScenarioError
from conformance.harness.context import Check, HarnessContext, judge, result, unplayed_failure
from conformance.model import Conversation, Outcome
from conformance.replay.player import ReplayMismatch, ReplaySession
from conformance.report.matrix import ScenarioResult
from conformance.runtime.reference import ReferenceRuntime, parse_conversation
from conformance.scenarios import Scenario

CHECK_REGISTRY: dict[str, Check] = {}


def register_check(name: str, check: Check) -> None:
    CHECK_REGISTRY[name] = check


_CONVERSATION_KEYS = frozenset({"messages", "tools", "options", "model"})
"""Input keys that make up the conversation; checks read their own settings from the others."""


def conversation_for(scenario: Scenario, provider: str) -> dict[str, Any]:
    """The scenario's input with the provider entry's model and options applied."""
    data = {k: v for k, v in scenario.spec.input.items() if k in _CONVERSATION_KEYS}
    entry = scenario.entry(provider)
    if entry is not None and entry.model:
        data["model"] = entry.model
    if entry is not None and entry.options:
        data["options"] = {**data.get("options", {}), **entry.options}
    data.setdefault("messages", [])
    return data


def split(body: bytes, size: int | None) -> list[bytes]:
    if not size or not body:
        return [body]
    return [body[i : i + size] for i in range(0, len(body), size)]


def canonical_outcome(data: Any) -> dict[str, Any]:
    """The contract JSON of an outcome with defaults filled, so omitted defaults compare equal."""
    return Outcome.model_validate(data).to_json()


def expected_outcome(scenario: Scenario, provider: str) -> dict[str, Any]:
    data = scenario.expected_for(provider)
    try:
        return canonical_outcome(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "expected"
        raise ScenarioError(f"expected.{where}: {first['msg']}", where=str(scenario.path)) from None


def check_decode(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    """Encode the input, replay the request from the cassette, decode the answer, compare."""
    profile = get_profile(provider)
    cassette = scenario.cassette_path(provider, ctx.root)
    if not cassette.is_file():
        return result(scenario, provider, "missing", f"no cassette at {ctx.rel(cassette)}")
    conv_data = conversation_for(scenario, provider)
    conv: Conversation = parse_conversation(conv_data, where=f"{scenario.path}: input")
    wire = ReferenceRuntime().wire_request(conv, profile)
    body = ctx.runtime.encode(conv_data, provider)
    expected = expected_outcome(scenario, provider)
    rel = ctx.rel(cassette)
    with ReplaySession(cassette) as session:
        try:
            response = session.send(wire.method, wire.url(profile), body, wire.headers)
        except ReplayMismatch as exc:
            return result(
                scenario, provider, "fail", f"request not in cassette: {exc}", cassette=rel, expected=expected
            )
        unplayed = session.unplayed()
    actual = ctx.runtime.decode(
        provider,
        response.status,
        response.headers,
        split(response.body, scenario.spec.chunk_size),
        wire.stream,
    )
    failure = unplayed_failure(scenario, provider, unplayed, cassette=rel, expected=expected, actual=actual)
    if failure is not None:
        return failure
    try:
        actual = canonical_outcome(actual)
    except ValidationError as exc:
        return result(
            scenario,
            provider,
            "fail",
            f"the runtime's output is not a normalized outcome: {exc.errors()[0]['msg']}",
            cassette=rel,
            expected=expected,
            actual=actual,
        )
    return judge(scenario, provider, expected, actual, ctx=ctx, cassette=rel)


def check_encode(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    """Encode the input for the provider and compare with the expected wire body."""
    expected = scenario.expected_for(provider)
    if expected is None:
        return result(scenario, provider, "missing", "no expected wire request for this provider")
    actual = ctx.runtime.encode(conversation_for(scenario, provider), provider)
    return judge(scenario, provider, expected, actual, ctx=ctx)


register_check("decode", check_decode)
register_check("encode", check_encode)


def _register_transcript_checks() -> None:
    from conformance.harness.generated import check_generated
    from conformance.harness.handoff import check_handoff
    from conformance.harness.retry_check import check_retry
    from conformance.harness.store_check import check_store
    from conformance.harness.transcript_checks import check_repair, check_transcript

    register_check("repair", check_repair)
    register_check("transcript", check_transcript)
    register_check("generated", check_generated)
    register_check("handoff", check_handoff)
    register_check("retry", check_retry)
    register_check("store", check_store)


_register_transcript_checks()


def run_check(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    """Run one scenario × provider. Unsupported is declared; misuse and crashes are `error`."""
    entry = scenario.entry(provider)
    if entry is not None and entry.unsupported:
        res = result(scenario, provider, "unsupported", entry.unsupported)
        res.scenario_path = ctx.rel(scenario.path)
        return res
    if scenario.check != "decode" and scenario.spec.providers and entry is None:
        return result(scenario, provider, "missing", "this scenario does not cover this provider yet")
    check = CHECK_REGISTRY.get(scenario.check)
    if check is None:
        return result(scenario, provider, "error", f"no check named {scenario.check!r} is available")
    try:
        res = check(scenario, provider, ctx)
    except InputError as exc:
        res = result(scenario, provider, "error", str(exc))
    except Exception as exc:  # a crash in the runtime under test is a verdict, with its type
        res = result(scenario, provider, "error", f"{type(exc).__name__}: {exc}")
    res.scenario_path = ctx.rel(scenario.path)
    return res
