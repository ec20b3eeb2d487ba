"""The `generated` check: hypothesis properties run against the runtime under test, per provider.

A scenario names a property and a number of examples (`input: {property: repair, examples: 50}`):

- `repair`: pathological transcripts (orphaned and missing tool results, failed turns, thinking
  out of order, empty and reused ids, foreign thinking, empty blocks, …) are repaired for the
  provider; the result, encoded, must pass the provider's request validator, and repairing it
  again must change nothing.
- `rechunk`: every bundled cassette of the provider decodes to the same outcome under any split
  of its response body.

The verdict carries the number of examples run; a failure carries hypothesis' shrunk example
(for `repair`, as a ready-to-save scenario file).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.capabilities import get_profile
from conformance.codecs import codec_for
from conformance.exceptions import ScenarioError
from conformance.harness.context import HarnessContext, result
from conformance.model import MESSAGES_ADAPTER, Conversation, dump
from conformance.replay.cassette import load_cassette
from conformance.report.matrix import ScenarioResult
from conformance.scenarios import Scenario, load_scenarios


@dataclass
class _Run:
    examples: int = 0
    failure: str | None = None
    notes: list[str] = field(default_factory=list)


def _repair_property(provider: str, ctx: HarnessContext, run: _Run) -> Callable[..., None]:
    from conformance import strategies
    from conformance.runtime.validate import validate

    profile = get_profile(provider)

    @given(strategies.pathological())
    def prop(case: Any) -> None:
        run.examples += 1
        raw = [dump(m) for m in case.messages]
        out = ctx.runtime.repair(raw, provider, None)
        repaired = MESSAGES_ADAPTER.validate_python(out["messages"])
        body = codec_for(profile).encode(Conversation(messages=repaired), profile).body
        problems = validate(body, profile)
        again = ctx.runtime.repair(out["messages"], provider, None)
        if problems or again["messages"] != out["messages"]:
            reason = "; ".join(f"{v.path}: {v.message}" for v in problems) if problems else "repair is not idempotent"
            run.failure = f"{reason} (mutations: {', '.join(case.kinds)})\n" + strategies.as_scenario_yaml(
                case.messages, provider, "generated_repair"
            )
            raise AssertionError(run.failure)

    return prop


def _rechunk_property(provider: str, ctx: HarnessContext, run: _Run) -> Callable[..., None]:
    bodies: list[tuple[str, int, dict[str, str], bytes, bool]] = []
    for scenario in load_scenarios(ctx.root / "scenarios"):
        if scenario.check != "decode":
            continue
        path = scenario.cassette_path(provider, ctx.root)
        if not path.is_file():
            continue
        for it in load_cassette(path).interactions:
            rel = ctx.rel(path)
            bodies.append(
                (rel, it.response.status, it.response.flat_headers(), it.response.body, it.request.stream_requested())
            )
    if not bodies:
        raise _NoCassettes()
    wholes = [ctx.runtime.decode(provider, s, h, [b], st_) for (_, s, h, b, st_) in bodies]

    @given(st.data())
    def prop(data: st.DataObject) -> None:
        run.examples += 1
        i = data.draw(st.integers(0, len(bodies) - 1), label="cassette")
        rel, status, headers, body, stream = bodies[i]
        cuts = sorted(set(data.draw(st.lists(st.integers(0, len(body)), max_size=24), label="cuts")))
        chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
        if ctx.runtime.decode(provider, status, headers, chunks, stream) != wholes[i]:
            run.failure = f"{rel}: decoding differs when the body is split at {cuts}"
            raise AssertionError(run.failure)

    return prop


class _NoCassettes(Exception):
    pass


PROPERTIES: dict[str, Callable[[str, HarnessContext, _Run], Callable[..., None]]] = {
    "repair": _repair_property,
    "rechunk": _rechunk_property,
}


def check_generated(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    spec = scenario.spec.input
    name = str(spec.get("property", ""))
    factory = PROPERTIES.get(name)
    if factory is None:
        raise ScenarioError(f"input.property must be one of {', '.join(PROPERTIES)}", where=str(scenario.path))
    examples = int(ctx.extras.get("examples") or spec.get("examples", 50))
    run = _Run()
    try:
        prop = factory(provider, ctx, run)
    except _NoCassettes:
        return result(scenario, provider, "missing", "no cassettes to re-chunk for this provider")
    configured = settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))(
        prop
    )
    try:
        configured()
    except AssertionError:
        return result(
            scenario, provider, "fail", run.failure or "property failed", examples=run.examples, actual=run.failure
        )
    return result(
        scenario, provider, "pass", f"{run.examples} generated examples held the property", examples=run.examples
    )
