"""The `generated` check: hypothesis properties run against the runtime under test, per provider.

A scenario names a property and a number of examples (`input: {property: repair, examples: 40}`):

- `repair`: pathological transcripts (orphaned and missing tool results, failed turns, thinking
  out of order, empty and reused ids, foreign thinking, empty blocks, …) are repaired for the
  provider; the result, encoded, must pass the provider's request validator, and repairing it
  again must change nothing.
- `rechunk`: every bundled cassette of the provider decodes to the same outcome under any split
  of its response body.

The budget is fixed and documented so cost and verdicts are stable from run to run: the examples
are drawn once per process by hypothesis with `derandomize=True` and no example database, and
the same examples are given to every provider (and every runtime), so the cells are comparable.
`ctx.extras["examples"]` (`conformance run --examples N`) overrides the scenario's count. When an
example fails, hypothesis searches again from scratch and shrinks within `SHRINK_CALLS` property
calls, so the verdict carries the smallest failing case it finds in that budget (for `repair`, as a
ready-to-save scenario file) and says how many calls the search took.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from conformance.capabilities import get_profile
from conformance.codecs import codec_for
from conformance.compare import ScenarioResult
from conformance.exceptions import ScenarioError
from conformance.harness.checks.common import invented_ids_aligned, scenario_model
from conformance.harness.context import HarnessContext, requires, result
from conformance.model import MESSAGES_ADAPTER, Conversation, dump
from conformance.model.parse import parse_conversation
from conformance.replay.cassette import load_cassette
from conformance.replay.faults import fault_kinds
from conformance.runtime.dropped import DroppedChunks
from conformance.runtime.protocol import decode_response
from conformance.scenarios import Scenario

if TYPE_CHECKING:  # hypothesis is imported by the rows that draw examples, not by every process that loads the checks
    from hypothesis import settings
    from hypothesis import strategies as st


def _settings(n: int, *, generate_only: bool = False) -> settings:
    """The fixed budget: n examples, a fixed seed, no example database, no deadline."""
    from hypothesis import HealthCheck, Phase, settings

    phases = [Phase.generate] if generate_only else list(Phase)
    return settings(
        max_examples=n,
        phases=phases,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )


def _strategy(name: str) -> st.SearchStrategy[Any]:
    from hypothesis import strategies as st

    from conformance import strategies

    if name == "repair":
        return strategies.pathological()
    # rechunk, parity: which cassette (a fraction of the list) and where to cut (fractions of its length)
    return st.tuples(st.floats(0, 1, exclude_max=True), st.lists(st.floats(0, 1), max_size=24))


@functools.cache
def drawn_examples(name: str, n: int) -> tuple[Any, ...]:
    """`n` examples of the property's strategy, drawn once per process with a fixed seed."""
    from hypothesis import given

    out: list[Any] = []

    @_settings(n, generate_only=True)
    @given(_strategy(name))
    def collect(example: Any) -> None:
        out.append(example)

    collect()
    return tuple(out)


def draw_ahead(scenarios: list[Scenario], ctx: HarnessContext) -> None:
    """Draw the examples of these generated rows now, in the calling thread: a threaded run does this
    before its threads start, because hypothesis takes any change of the global `random` state while
    it draws (another thread's retry row seeding it) for a strategy misusing `random`."""
    for scenario in scenarios:
        if scenario.check != "generated":
            continue
        name = str(scenario.spec.input.get("property", ""))
        if name in PROPERTIES:
            drawn_examples(name, _budget(scenario, ctx))


def _budget(scenario: Scenario, ctx: HarnessContext) -> int:
    """The row's number of examples: `--examples`, else the scenario's, else 50."""
    return int(ctx.extras.get("examples") or scenario.spec.input.get("examples", 50))


Property = Callable[[Any], "str | None"]
"""One example → None when the property holds, else the reason it does not."""


def _repair_property(provider: str, ctx: HarnessContext) -> Property:
    from conformance import strategies
    from conformance.runtime.validate import validate

    profile = get_profile(provider)

    def prop(case: Any) -> str | None:
        raw = [dump(m) for m in case.messages]
        out = ctx.runtime.repair(raw, provider, None)
        repaired = MESSAGES_ADAPTER.validate_python(out["messages"])
        body = codec_for(profile).encode(Conversation(messages=repaired), profile).body
        problems = validate(body, profile, awaiting_tools=True)  # a transcript may end awaiting its tools
        again = ctx.runtime.repair(out["messages"], provider, None)
        if not problems and again["messages"] == out["messages"]:
            return None
        reason = "; ".join(f"{v.path}: {v.message}" for v in problems) if problems else "repair is not idempotent"
        return f"{reason} (mutations: {', '.join(case.kinds)})\n" + strategies.as_scenario_yaml(
            case.messages, provider, "generated_repair"
        )

    return prop


def _rechunk_property(provider: str, ctx: HarnessContext) -> Property:
    bodies: list[tuple[str, int, dict[str, str], bytes, bool, str, bool, dict[str, Any]]] = []
    for scenario in ctx.scenarios():
        if scenario.check != "decode":
            continue
        path = scenario.cassette_path(provider, ctx.root)
        if not path.is_file():
            continue
        model, conversation = scenario_model(scenario, provider), scenario.conversation(provider)
        cassette = load_cassette(path)
        endings = fault_kinds(cassette.meta, len(cassette.interactions), str(path))
        for it, ending in zip(cassette.interactions, endings, strict=True):
            rel = ctx.rel(path)
            response = it.response
            streamed = it.request.stream_requested()
            dropped = ending == "drop"  # the same drop after every chunking (`replay.faults`)
            row = (rel, response.status, response.flat_headers(), response.body, streamed, model, dropped, conversation)
            bodies.append(row)
    if not bodies:
        raise _NoCassettes()
    wholes: dict[int, dict[str, Any]] = {}

    def prop(example: tuple[float, list[float]]) -> str | None:
        pick, fractions = example
        i = int(pick * len(bodies))
        rel, status, headers, body, stream, model, dropped, conversation = bodies[i]
        if i not in wholes:
            whole = DroppedChunks([body]) if dropped else [body]
            wholes[i] = decode_response(
                ctx.runtime, provider, status, headers, whole, stream, model=model, conversation=conversation
            )
        cuts = sorted({int(f * len(body)) for f in fractions})
        chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
        chunks = DroppedChunks(chunks) if dropped else chunks
        split_up = decode_response(
            ctx.runtime, provider, status, headers, chunks, stream, model=model, conversation=conversation
        )
        if split_up == wholes[i] or invented_ids_aligned(wholes[i], split_up, body)[0] == wholes[i]:
            return None  # the same, or the same but for ids of the runtime's own invention
        return f"{rel}: decoding differs when the body is split at {cuts}"

    return prop


def _without(outcome: Any, fields: frozenset[str]) -> Any:
    """`outcome` with these fields of its message left out."""
    message = outcome.get("message") if isinstance(outcome, dict) else None
    if not fields or not isinstance(message, dict):
        return outcome
    return {**outcome, "message": {k: v for k, v in message.items() if k not in fields}}


def _parity_property(provider: str, ctx: HarnessContext) -> Property:
    """The same answer streamed and not streamed reads the same: each bundled non-streamed success,
    re-encoded in the dialect's stream form (`Codec.restream`, as replay answers a request that asks
    for a stream) and cut at the drawn places, decodes to what the JSON body decodes to."""
    from conformance.codecs import decode_response as read
    from conformance.replay.delivery import restreamed

    profile = get_profile(provider)
    codec = codec_for(profile)
    pairs: list[tuple[str, int, dict[str, str], bytes, bytes, dict[str, str], str, dict[str, Any]]] = []
    left_out: list[frozenset[str]] = []
    for scenario in ctx.scenarios():
        path = scenario.cassette_path(provider, ctx.root)
        if scenario.check != "decode" or not path.is_file():
            continue
        model, conversation = scenario_model(scenario, provider), scenario.conversation(provider)
        for it in load_cassette(path).interactions:
            response = it.response
            if it.request.stream_requested() or response.status >= 400:
                continue
            # the request a client asking for this answer as a stream sends (usage included where the
            # dialect asks for it), as this package's encoder writes it
            options = {**(conversation.get("options") or {}), "stream": True}
            asked = parse_conversation({**conversation, "options": options}, where=f"{scenario.path}: input")
            sent = codec_for(profile).encode(asked, profile).body
            headers = response.flat_headers()
            stream_headers, stream = restreamed(profile, response.status, list(headers.items()), response.body, sent)
            if stream != response.body:
                # what the written stream does not carry (usage, where the request did not ask for it)
                # is left out: this package's readings of the two bodies say which fields
                ours = [
                    read(codec, profile, response.status, h, b, stream_hint=st).to_json().get("message") or {}
                    for h, b, st in ((headers, response.body, False), (dict(stream_headers), stream, True))
                ]
                absent = frozenset(ours[0]) - frozenset(ours[1])
                rel = ctx.rel(path)
                pairs.append(
                    (rel, response.status, headers, response.body, stream, dict(stream_headers), model, conversation)
                )
                left_out.append(absent)
    if not pairs:
        raise _NoCassettes()
    plain: dict[int, Any] = {}

    def prop(example: tuple[float, list[float]]) -> str | None:
        pick, fractions = example
        i = int(pick * len(pairs))
        rel, status, headers, body, stream, stream_headers, model, conversation = pairs[i]
        if i not in plain:
            plain[i] = _without(
                decode_response(
                    ctx.runtime, provider, status, headers, [body], False, model=model, conversation=conversation
                ),
                left_out[i],
            )
        cuts = sorted({int(f * len(stream)) for f in fractions})
        chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
        streamed = _without(
            decode_response(
                ctx.runtime, provider, status, stream_headers, chunks, True, model=model, conversation=conversation
            ),
            left_out[i],
        )
        if streamed == plain[i] or invented_ids_aligned(plain[i], streamed, body)[0] == plain[i]:
            return None
        return f"{rel}: the answer streamed (cut at {cuts}) decodes otherwise than the same answer not streamed"

    return prop


class _NoCassettes(Exception):
    pass


PROPERTIES: dict[str, Callable[[str, HarnessContext], Property]] = {
    "repair": _repair_property,
    "rechunk": _rechunk_property,
    "parity": _parity_property,
}
NEEDS: dict[str, str] = {"repair": "repair", "rechunk": "decode", "parity": "decode"}
"""The capability of the runtime under test each property exercises."""


SHRINK_CALLS = 30
"""Property calls hypothesis may spend on a failure after it first finds one (searching again and
shrinking): a failing row costs a bounded, machine-independent amount of work, and the verdict says
when the budget stopped the search short of the smallest case."""


class _BudgetSpent(BaseException):
    """Stops hypothesis' search from inside the property (a `BaseException`, which it does not
    take for a failure of the property)."""


def _shrunk(name: str, prop: Property, n: int) -> tuple[str | None, str]:
    """The property's failure on the smallest failing example found within `SHRINK_CALLS` property
    calls, and a note of how the search ended.

    Hypothesis only ever moves to a failing example smaller than the last, so the last failure seen
    is the smallest so far: when the budget is spent, the search stops there."""
    from hypothesis import find
    from hypothesis.errors import FlakyFailure, NoSuchExample

    smallest: list[str] = []
    calls = 0

    def fails(example: Any) -> bool:
        nonlocal calls
        if smallest and calls >= SHRINK_CALLS:
            raise _BudgetSpent
        calls += 1
        failure = prop(example)
        if failure is not None:
            smallest[:] = [failure]
        return failure is not None

    try:
        find(_strategy(name), fails, settings=_settings(4 * n))
    except NoSuchExample:
        return None, "not found again when searched from scratch"
    except _BudgetSpent:
        return smallest[0], f"shrinking stopped after {SHRINK_CALLS} property calls, its budget"
    except FlakyFailure:  # another thread of a threaded run moved the global `random` state meanwhile
        return (smallest[0] if smallest else None), "the search was cut short by another thread's use of `random`"
    return smallest[0], f"shrunk in {calls} property calls (budget {SHRINK_CALLS})"


def check_generated(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    spec = scenario.spec.input
    name = str(spec.get("property", ""))
    factory = PROPERTIES.get(name)
    if factory is None:
        raise ScenarioError(f"input.property must be one of {', '.join(PROPERTIES)}", where=str(scenario.path))
    skipped = requires(ctx, scenario, provider, NEEDS[name])
    if skipped is not None:
        return skipped
    n = _budget(scenario, ctx)
    examples = 0
    try:
        prop = factory(provider, ctx)
    except _NoCassettes:
        return result(scenario, provider, "missing", "no cassettes to re-chunk for this provider")
    for example in drawn_examples(name, n):
        examples += 1
        failure = prop(example)
        if failure is not None:
            smallest, note = _shrunk(name, prop, n)
            failure = smallest or failure
            return result(scenario, provider, "fail", f"{failure}\n({note})", examples=examples, actual=failure)
    return result(scenario, provider, "pass", f"{examples} generated examples held the property", examples=examples)
