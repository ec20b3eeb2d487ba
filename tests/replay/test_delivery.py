"""A request that asks for a stream where the recording did not, and differs from it in delivery keys
alone (`stream`, `stream_options`) or, on Gemini, only in asking at the address that streams
(`:streamGenerateContent?alt=sse`), gets the recorded answer streamed in replay (retry and context
rows) and from the emulator; an error answer comes back as recorded; any other difference, or a
dialect without a stream writer, still matches nothing."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.capabilities import get_profile
from conformance.codecs import codec_for
from conformance.codecs.base import decode_response
from conformance.emulator import serve, start_in_thread
from conformance.emulator.server import EmulatorServer, scenario_base_url
from conformance.harness import HarnessContext, run_all
from conformance.replay.cassette import load_cassette
from conformance.replay.player import CassetteTransport, ReplayMismatch
from conformance.runtime.protocol import TurnRequest
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
ASKED = {"openai": {"stream": True, "stream_options": {"include_usage": True}}, "anthropic": {"stream": True}}


def _recorded(provider: str, scenario: str) -> tuple[str, dict[str, Any]]:
    it = load_cassette(ROOT / "cassettes" / provider / f"{scenario}.yaml").interactions[0]
    body = it.request.json()
    assert isinstance(body, dict)
    return it.request.uri, body


def _post(transport: CassetteTransport, uri: str, body: dict[str, Any]) -> httpx.Response:
    with httpx.Client(transport=transport) as client:
        response = client.post(uri, content=json.dumps(body).encode(), headers={"content-type": "application/json"})
        response.read()
        return response


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_streamed_request_gets_the_error_as_recorded_then_the_answer_streamed(provider: str) -> None:
    cassette = load_cassette(ROOT / "cassettes" / provider / "retry_429_retry_after.yaml")
    transport = CassetteTransport(cassette, restream=True)
    uri, body = _recorded(provider, "retry_429_retry_after")
    first = _post(transport, uri, {**body, **ASKED[provider]})
    assert first.status_code == 429 and first.content == cassette.interactions[0].response.body
    second = _post(transport, uri, {**body, **ASKED[provider]})
    assert second.status_code == 200 and second.headers["content-type"] == "text/event-stream"
    profile = get_profile(provider)
    codec = codec_for(profile)
    recorded = cassette.interactions[1].response
    whole = decode_response(codec, profile, 200, recorded.flat_headers(), recorded.body)
    streamed = decode_response(codec, profile, 200, dict(second.headers), second.content)
    assert streamed.to_json() == whole.to_json()
    assert {f.path.split(".")[0] for f in transport.findings} >= {"stream"}
    assert {f.verdict for f in transport.findings} == {"note"}


def test_without_restream_or_with_another_difference_nothing_matches() -> None:
    cassette = load_cassette(ROOT / "cassettes" / "openai" / "retry_429_retry_after.yaml")
    uri, body = _recorded("openai", "retry_429_retry_after")
    with pytest.raises(ReplayMismatch):
        _post(CassetteTransport(cassette), uri, {**body, "stream": True})
    with pytest.raises(ReplayMismatch):
        _post(CassetteTransport(cassette, restream=True), uri, {**body, "stream": True, "temperature": 0.2})


def test_a_recording_that_streamed_is_not_answered_whole_to_a_request_that_does_not() -> None:
    cassette = copy.deepcopy(load_cassette(ROOT / "cassettes" / "openai" / "retry_429_retry_after.yaml"))
    uri, body = _recorded("openai", "retry_429_retry_after")
    for it in cassette.interactions:  # as if recorded with a stream
        it.request.body = json.dumps({**body, "stream": True}).encode()
    transport = CassetteTransport(cassette, restream=True)
    with pytest.raises(ReplayMismatch):
        _post(transport, uri, body)


class AlwaysStreams(ReferenceRuntime):
    """The reference asking for a stream on every turn, as pi-ai does."""

    name = "always-streams"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        options = {**request.conversation.get("options", {}), "stream": True}
        return super().turn(
            TurnRequest(
                provider=request.provider,
                conversation={**request.conversation, "options": options},
                transport=request.transport,
                base_url=request.base_url,
                keys=request.keys,
                clock=request.clock,
                settings=request.settings,
            )
        )


def test_a_runtime_that_always_streams_is_judged_on_its_retries() -> None:
    ids = {
        "retry_429_retry_after",
        "retry_overloaded_backoff",
        "retry_attempt_cap",
        "retry_auth_rotation",
        "retry_gemini_retry_info",
    }
    scenarios = [s for s in load_scenarios(ROOT / "scenarios") if s.id in ids]
    ctx = HarnessContext(root=ROOT, runtime=AlwaysStreams(), runtime_name="always-streams")
    got = {(r.scenario, r.provider): r for r in run_all(scenarios, ["openai", "anthropic", "gemini"], ctx)}
    assert {k: r.reason for k, r in got.items() if r.verdict not in ("pass", "unsupported")} == {}
    assert {p for (_, p), r in got.items() if r.verdict == "pass"} == {"openai", "anthropic", "gemini"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    cassettes = tmp_path_factory.mktemp("emu") / "cassettes"
    for provider in ("openai", "anthropic", "openai_responses"):
        (cassettes / provider).mkdir(parents=True)
        shutil.copy(ROOT / "cassettes" / provider / "retry_429_retry_after.yaml", cassettes / provider)
    server = serve(cassettes)
    start_in_thread(server)
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_emulator_streams_the_recorded_answer_too(server: EmulatorServer, provider: str) -> None:
    host, port = server.server_address
    base = scenario_base_url(host, port, "retry_429_retry_after", provider)
    uri, body = _recorded(provider, "retry_429_retry_after")
    path = uri.split("/v1", 1)[1]
    answers = [httpx.post(base + path, json={**body, **ASKED[provider]}, timeout=10) for _ in range(2)]
    assert [a.status_code for a in answers] == [429, 200]
    assert answers[1].headers["content-type"] == "text/event-stream"
    profile = get_profile(provider)
    outcome = decode_response(codec_for(profile), profile, 200, dict(answers[1].headers), answers[1].content)
    assert outcome.message is not None and outcome.message.content


def test_the_emulator_answers_a_responses_stream_request_errors_as_recorded_then_the_answer_streamed(
    server: EmulatorServer,
) -> None:
    host, port = server.server_address
    base = scenario_base_url(host, port, "retry_429_retry_after", "openai_responses")
    uri, body = _recorded("openai_responses", "retry_429_retry_after")
    path = uri.split("/v1", 1)[1]
    first = httpx.post(base + path, json={**body, "stream": True}, timeout=10)
    assert first.status_code == 429 and first.headers["content-type"].startswith("application/json")
    second = httpx.post(base + path, json={**body, "stream": True}, timeout=10)
    assert second.status_code == 200 and second.headers["content-type"] == "text/event-stream"
    assert b"event: response.completed" in second.content


GEMINI_STREAM = (":generateContent", ":streamGenerateContent?alt=sse")


def test_gemini_asked_at_its_stream_address_gets_the_errors_as_recorded_then_the_answer_streamed() -> None:
    cassette = load_cassette(ROOT / "cassettes" / "gemini" / "retry_overloaded_backoff.yaml")
    transport = CassetteTransport(cassette, restream=True)
    uri, body = _recorded("gemini", "retry_overloaded_backoff")
    answers = [_post(transport, uri.replace(*GEMINI_STREAM), body) for _ in range(3)]
    assert [a.status_code for a in answers] == [503, 503, 200]
    assert answers[0].content == cassette.interactions[0].response.body
    assert answers[2].headers["content-type"] == "text/event-stream"
    profile = get_profile("gemini")
    codec = codec_for(profile)
    recorded = cassette.interactions[2].response
    whole = decode_response(codec, profile, 200, recorded.flat_headers(), recorded.body)
    streamed = decode_response(codec, profile, 200, dict(answers[2].headers), answers[2].content)
    assert streamed.to_json() == whole.to_json()


def test_gemini_at_its_stream_address_with_another_body_or_without_restream_matches_nothing() -> None:
    cassette = load_cassette(ROOT / "cassettes" / "gemini" / "retry_overloaded_backoff.yaml")
    uri, body = _recorded("gemini", "retry_overloaded_backoff")
    with pytest.raises(ReplayMismatch):
        _post(CassetteTransport(cassette), uri.replace(*GEMINI_STREAM), body)
    changed = {**body, "generationConfig": {"temperature": 0.2}}
    with pytest.raises(ReplayMismatch):
        _post(CassetteTransport(cassette, restream=True), uri.replace(*GEMINI_STREAM), changed)


def test_the_emulator_streams_gemini_at_its_stream_address(tmp_path: Path) -> None:
    (tmp_path / "gemini").mkdir()
    shutil.copy(ROOT / "cassettes" / "gemini" / "retry_overloaded_backoff.yaml", tmp_path / "gemini")
    emulator = serve(tmp_path)
    start_in_thread(emulator)
    try:
        host, port = emulator.server_address
        base = scenario_base_url(host, port, "retry_overloaded_backoff", "gemini")
        uri, body = _recorded("gemini", "retry_overloaded_backoff")
        path = uri.split("/v1beta", 1)[1].replace(*GEMINI_STREAM)
        answers = [httpx.post(base + path, json=body, timeout=10) for _ in range(3)]
    finally:
        emulator.shutdown()
        emulator.server_close()
    assert [a.status_code for a in answers] == [503, 503, 200]
    assert answers[2].headers["content-type"] == "text/event-stream"
    profile = get_profile("gemini")
    outcome = decode_response(codec_for(profile), profile, 200, dict(answers[2].headers), answers[2].content)
    assert outcome.message is not None and outcome.message.content
