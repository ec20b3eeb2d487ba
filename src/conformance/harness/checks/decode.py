"""The `decode` check: the runtime's request must match the cassette; its reading of the answer, the expected form."""

from __future__ import annotations

from pydantic import ValidationError

from conformance.capabilities import get_profile
from conformance.codecs import codec_for
from conformance.codecs.request_form import request_findings
from conformance.compare import ScenarioResult
from conformance.harness.checks.common import (
    calls_stop_aligned,
    canonical_outcome,
    expected_outcome,
    invented_ids_aligned,
    own_codes_aligned,
    scenario_model,
    split,
    thinking_order_aligned,
)
from conformance.harness.context import (
    HarnessContext,
    judge,
    requires,
    result,
    unplayed_failure,
)
from conformance.model.parse import parse_conversation
from conformance.replay.cassette import cassette_evidence
from conformance.replay.player import ReplayMismatch, ReplaySession
from conformance.runtime.dropped import DroppedChunks
from conformance.runtime.protocol import decode_response, missing_capabilities, refusal_of
from conformance.scenarios import Scenario


def delivered_chunks(chunks: list[bytes], dropped: BaseException | None) -> list[bytes]:
    """The chunks as the runtime receives them: when the connection dropped, they are followed by
    the transport's error (`runtime.dropped`), as a socket read raises it."""
    return chunks if dropped is None else DroppedChunks(chunks, dropped)


def check_decode(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    """The runtime encodes the input; its body must match the cassette's recorded request (sent to
    the recorded endpoint), and the recorded answer, decoded by the runtime, is compared. A runtime
    that asks for a stream where the recording did not gets the recorded answer as that stream
    (`replay.delivery`). A runtime without `encode` is judged on decoding alone: the recorded
    request is sent as it is."""
    skipped = requires(ctx, scenario, provider, "decode")
    if skipped is not None:
        return skipped
    cassette = scenario.cassette_path(provider, ctx.root)
    if not cassette.is_file():
        return result(scenario, provider, "missing", f"no cassette at {ctx.rel(cassette)}")
    conv_data = scenario.conversation(provider)
    parse_conversation(conv_data, where=f"{scenario.path}: input")  # a scenario error names the field
    expected = expected_outcome(scenario, provider)
    rel = ctx.rel(cassette)
    has_encode = not missing_capabilities(ctx.runtime, ("encode",))
    with ReplaySession(cassette, restream=has_encode) as session:
        evidence = cassette_evidence(session.transport.cassette.meta)
        recorded = session.transport.cassette.interactions[0].request
        stream = recorded.stream_requested()
        body = ctx.runtime.encode(conv_data, provider) if has_encode else recorded.json()
        refused = refusal_of(body)
        if refused is not None:
            status = session.transport.cassette.interactions[0].response.status
            if status < 400:  # a refusal of a request the provider accepts: a limitation, not a crash
                why = f"the runtime refuses a request {provider} accepts (recorded status {status}): {refused}"
                return result(scenario, provider, "not_offered", why, cassette=rel, evidence=evidence)
            body = recorded.json()  # the provider refuses it too: its answer's reading is still judged
        try:
            # a runtime that asks for the recorded answer as a stream (its delivery keys alone
            # differ) gets it streamed: its reading of that stream is what the row judges
            response = session.send(recorded.method, recorded.uri, body)
            requests = list(session.transport.findings)
            stream = stream or session.transport.answered_streams()
        except ReplayMismatch:
            # the runtime's request differs: it is reported as findings, and the recorded request
            # stands in for it so that the row judges the decoding of the scenario's answer
            requests = request_findings(get_profile(provider), recorded.json(), body)
            response = session.send(recorded.method, recorded.uri, recorded.json())
        unplayed = session.unplayed()
    actual = decode_response(
        ctx.runtime,
        provider,
        response.status,
        response.headers,
        delivered_chunks(split(response.body, scenario.spec.chunk_size), response.dropped),
        stream,
        model=scenario_model(scenario, provider),
        conversation=conv_data,
    )
    failure = unplayed_failure(
        scenario, provider, unplayed, cassette=rel, evidence=evidence, expected=expected, actual=actual
    )
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
            evidence=evidence,
            expected=expected,
            actual=actual,
        )
    # what the wire leaves to the runtime (ids it never sent, which of its own codes to report, the
    # place of thinking that came after text, a plain stop on a message of calls where the provider
    # has no other) is aligned before judging; the result shows the answer as it was, with a note each
    profile = get_profile(provider)
    aligned, invented = invented_ids_aligned(expected, actual, response.body)
    aligned, own_codes = own_codes_aligned(expected, aligned, response.body)
    aligned, order = thinking_order_aligned(expected, aligned)
    aligned, stops = calls_stop_aligned(expected, aligned, codec_for(profile).calls_end_plainly)
    judged = judge(scenario, provider, expected, aligned, ctx=ctx, cassette=rel, evidence=evidence, requests=requests)
    notes = invented + own_codes + order + stops
    if notes:
        judged.reason += "\nnoting " + "; ".join(notes)
        judged.actual = actual
    return judged
