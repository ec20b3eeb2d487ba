"""The emulator's faults in the Responses dialect: HTTP errors in OpenAI's envelope and an `error`
event inside the 200 stream, both read back as typed errors."""

from __future__ import annotations

from pathlib import Path

from conformance.capabilities import get_profile
from conformance.codecs import codec_for, decode_response
from conformance.emulator.faults import Fault
from conformance.replay.cassette import load_cassette

ROOT = Path(__file__).resolve().parents[2]
PROFILE = get_profile("openai_responses")


def test_an_error_event_after_the_first_event_keeps_the_stream_as_partial() -> None:
    body = (
        load_cassette(ROOT / "cassettes" / "openai_responses" / "tool_call_stream.yaml").interactions[0].response.body
    )
    shaped = Fault.parse("error-event").shape_stream(body, "openai_responses")
    headers = {"content-type": "text/event-stream"}
    outcome = decode_response(codec_for(PROFILE), PROFILE, 200, headers, shaped, stream_hint=True)
    assert outcome.error is not None and outcome.error.kind == "server"
    assert outcome.partial is not None and outcome.partial.stop_reason == "error"


def test_http_faults_use_the_openai_envelope() -> None:
    response = Fault.parse("429;retry-after=7").error_response("openai_responses")
    assert response is not None
    status, headers, body = response
    outcome = decode_response(codec_for(PROFILE), PROFILE, status, headers, body)
    assert outcome.error is not None
    assert (outcome.error.kind, outcome.error.retry_after_s) == ("rate_limited", 7.0)
