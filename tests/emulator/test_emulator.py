"""The emulator over real loopback HTTP: recording every provider through it with canary keys,
fault injection, and the reference runtime's retry trace against it."""

from __future__ import annotations

import asyncio
import logging
import random
import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import httpx
import pytest

from conformance import capabilities
from conformance.capabilities import get_profile, matrix_providers
from conformance.emulator import Fault, Settings, base_urls, serve, start_in_thread
from conformance.harness import HarnessContext, build_matrix, run_all
from conformance.harness.record import record
from conformance.model import Conversation
from conformance.replay.cassette import load_cassette
from conformance.replay.faults import read_until_dropped
from conformance.runtime.clock import FakeClock
from conformance.runtime.dropped import DroppedChunks
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.turn import run_turn
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
CANARY = "sk-canary-7f3a9c2e1b8d4f60a5e7c9b1d3f5a7c9"


@pytest.fixture(scope="module")
def emulator() -> Iterator[tuple[str, int]]:
    """One server for the module (it serves interaction by interaction and starts over)."""
    server = serve(ROOT / "cassettes", settings=Settings(chunk_size=17))
    start_in_thread(server)
    try:
        yield "127.0.0.1", server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def own_emulator() -> Iterator[tuple[str, int]]:
    """A server of the test's own: it starts at every cassette's first interaction."""
    server = serve(ROOT / "cassettes", settings=Settings(chunk_size=17))
    start_in_thread(server)
    try:
        yield "127.0.0.1", server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def decode_verdicts(root: Path, providers: list[str]) -> dict[tuple[str, str], str]:
    scenarios = [s for s in load_scenarios(root / "scenarios") if s.check == "decode"]
    ctx = HarnessContext(root=root, runtime=ReferenceRuntime())
    return {(r.scenario, r.provider): r.verdict for r in run_all(scenarios, providers, ctx)}


SAMPLE = 4
"""`[sample]`: the first rows (by id) each provider records; `[every-row]` (the full step) records all."""


@pytest.mark.parametrize("every_row", [False, True], ids=["sample", "every-row"])
def test_record_every_provider_through_the_emulator_without_leaking_keys(
    every_row: bool,
    own_emulator: tuple[str, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    # gemini's key goes in the query string here, so every auth style is exercised
    gemini = capabilities._PROFILES["gemini"]
    monkeypatch.setitem(capabilities._PROFILES, "gemini", gemini.model_copy(update={"auth_style": "query-key"}))
    host, port = own_emulator
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    providers = [p for p in matrix_providers() if (ROOT / "cassettes" / p).is_dir()]
    urls = base_urls(host, port, providers)
    styles = set()
    recorded: set[tuple[str, str]] = set()
    scenarios = [s for s in load_scenarios(ROOT / "scenarios") if s.check == "decode"]
    for provider in providers:
        profile = get_profile(provider)
        styles.add(profile.auth_style)
        env = dict.fromkeys(profile.key_env, CANARY)
        bundled = sorted(s.id for s in scenarios if s.cassette_path(provider, ROOT).is_file())
        bundled = bundled if every_row else bundled[:SAMPLE]
        recorded |= {(scenario, provider) for scenario in bundled}
        report = record(
            tmp_path,
            provider,
            mode="all",
            scenario_ids=bundled,
            base_url=urls[provider],
            env=env,
            today=date(2026, 11, 22),
        )
        assert not report.skipped
        assert len(report.recorded) == len(bundled)
    assert {"bearer", "x-api-key", "query-key", "none"} <= styles
    # no canary byte anywhere: cassettes, a report, logs, output
    matrix = build_matrix(
        [], providers, HarnessContext(root=tmp_path, runtime=ReferenceRuntime()), scenario_dir=tmp_path / "scenarios"
    )
    matrix.save(tmp_path / "reports" / "matrix.json")
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert CANARY.encode() not in path.read_bytes(), path
    assert CANARY not in caplog.text
    assert CANARY not in capsys.readouterr().out
    # the fresh cassettes replay to the same verdicts as the bundled ones
    fresh = decode_verdicts(tmp_path, providers)
    bundled_verdicts = decode_verdicts(ROOT, providers)
    assert {k: v for k, v in fresh.items() if k in recorded} == {
        k: v for k, v in bundled_verdicts.items() if k in recorded
    }
    if every_row:
        assert fresh == bundled_verdicts


def test_missing_key_skips_the_provider_with_the_variable_named(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    report = record(tmp_path, "anthropic", mode="all", env={})
    assert report.skipped == ["anthropic: no API key; set ANTHROPIC_API_KEY in the environment"]
    assert not (tmp_path / "cassettes").exists()


def test_once_mode_never_overwrites(emulator: tuple[str, int], tmp_path: Path) -> None:
    host, port = emulator
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    target = tmp_path / "cassettes/openai/text_basic.yaml"
    target.parent.mkdir(parents=True)
    target.write_text("hand-written, keep me\n")
    url = base_urls(host, port, ["openai"])["openai"]
    report = record(
        tmp_path,
        "openai",
        mode="once",
        scenario_ids=["text_basic", "tool_call_single"],
        base_url=url,
        env={"OPENAI_API_KEY": CANARY},
    )
    assert target.read_text() == "hand-written, keep me\n"
    assert report.recorded == ["tool_call_single"] and report.kept == ["text_basic"]


def test_faults_and_the_retry_trace_against_the_emulator(tmp_path: Path) -> None:
    settings = Settings(faults=[Fault.parse("429;retry-after=7;times=1")])
    server = serve(ROOT / "cassettes", settings=settings)
    start_in_thread(server)
    try:
        url = base_urls("127.0.0.1", server.server_address[1], ["openai"])["openai"]
        profile = get_profile("openai").with_base_url(url)
        (scenario,) = load_scenarios(ROOT / "scenarios", only=["text_basic"])
        conv = Conversation.model_validate(scenario.spec.input)
        clock = FakeClock()
        result = asyncio.run(
            run_turn(conv, profile, transport=httpx.AsyncHTTPTransport(), clock=clock, rng=random.Random(0))
        )
        assert [s.action for s in result.trace] == ["send", "wait", "send", "done"]
        assert result.trace[1].seconds == 7.0 and clock.now() == 7.0
        assert result.message is not None and result.message.stop_reason == "stop"
        # a stream cut mid-way: the runtime sees a typed interruption with the partial kept
        stream_url = url + "/chat/completions"
        (stream_scenario,) = load_scenarios(ROOT / "scenarios", only=["usage_stream"])
        body = (
            ReferenceRuntime()
            .wire_request(Conversation.model_validate(stream_scenario.spec.input), get_profile("openai"))
            .body
        )
        response = httpx.post(stream_url, json=body, headers={"x-conformance-fault": "end=300"})
        outcome = ReferenceRuntime().decode(
            "openai", response.status_code, dict(response.headers), [response.content], True
        )
        assert outcome["error"]["kind"] == "stream_interrupted"
        assert response.status_code == 200 and len(response.content) == 300
        # cut: the same 300 bytes, then the connection closes with no terminating chunk (a drop)
        with httpx.stream("POST", stream_url, json=body, headers={"x-conformance-fault": "cut=300"}) as dropped:
            arrived, error = read_until_dropped(dropped)
        assert isinstance(error, httpx.RemoteProtocolError) and "incomplete chunked read" in str(error)
        assert len(arrived) == 300 and dropped.headers.get("transfer-encoding") == "chunked"
        outcome = ReferenceRuntime().decode("openai", 200, dict(dropped.headers), DroppedChunks([arrived], error), True)
        assert outcome["error"]["kind"] == "stream_interrupted" and outcome["partial"] is not None
        unknown = httpx.post(stream_url, json={"model": "nope"})
        assert unknown.status_code == 404 and "no recorded openai request" in unknown.json()["error"]
    finally:
        server.shutdown()
        server.server_close()


def test_drift_is_reported_and_accept_is_explicit(emulator: tuple[str, int], tmp_path: Path) -> None:
    import yaml

    host, port = emulator
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    target = tmp_path / "cassettes/openai/text_basic.yaml"
    target.parent.mkdir(parents=True)
    bundled = (ROOT / "cassettes/openai/text_basic.yaml").read_text()
    target.write_text(bundled.replace("Nice to meet you.", "Good to see you."))
    url = base_urls(host, port, ["openai"])["openai"]
    env = {"OPENAI_API_KEY": CANARY}
    scenario_file = tmp_path / "scenarios/responses/text_basic.yaml"
    before = scenario_file.read_text()
    report = record(tmp_path, "openai", mode="all", scenario_ids=["text_basic"], base_url=url, env=env)
    assert (
        'expected "Hello, conformance suite! Good to see you.", got "Hello, conformance suite! Nice to meet you."'
        in report.drift["text_basic"]
    )
    assert scenario_file.read_text() == before  # nothing accepted without asking
    target.write_text(bundled.replace("Nice to meet you.", "Good to see you."))
    record(tmp_path, "openai", mode="all", scenario_ids=["text_basic"], base_url=url, env=env, accept_outcomes=True)
    override = yaml.safe_load(scenario_file.read_text())["overrides"]["openai"]
    assert "content" not in override["message"]  # the recorded text is the shared one: not repeated
    assert "role" not in override["message"]  # only what differs from the shared form
    (accepted,) = load_scenarios(tmp_path / "scenarios", only=["text_basic"])
    assert accepted.expected_for("openai")["message"]["content"] == [
        {"type": "text", "text": "Hello, conformance suite! Nice to meet you."}
    ]


def test_reset_and_timeout_fail_before_any_byte_as_the_client_reads_them() -> None:
    server = serve(ROOT / "cassettes")
    start_in_thread(server)
    try:
        url = base_urls("127.0.0.1", server.server_address[1], ["openai"])["openai"] + "/chat/completions"
        body = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "x"}]}
        with pytest.raises(httpx.ReadError, match="Connection reset by peer"):
            httpx.post(url, json=body, headers={"x-conformance-fault": "reset"})
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(url, json=body, headers={"x-conformance-fault": "timeout"}, timeout=0.3)
    finally:
        server.shutdown()
        server.server_close()


def test_a_cassette_that_drops_is_served_as_a_drop(tmp_path: Path) -> None:
    for name in ("stream_truncated", "response_dropped"):
        (tmp_path / "openai").mkdir(exist_ok=True)
        shutil.copy(ROOT / f"cassettes/openai/{name}.yaml", tmp_path / "openai")
    server = serve(tmp_path)
    start_in_thread(server)
    try:
        url = base_urls("127.0.0.1", server.server_address[1], ["openai"])["openai"] + "/chat/completions"
        for name in ("stream_truncated", "response_dropped"):
            recorded = load_cassette(tmp_path / f"openai/{name}.yaml").interactions[0]
            with httpx.stream("POST", url, content=recorded.request.body) as response:
                arrived, error = read_until_dropped(response)
            assert arrived == recorded.response.body, name
            assert isinstance(error, httpx.RemoteProtocolError), name
    finally:
        server.shutdown()
        server.server_close()


def test_a_stream_cut_mid_way_is_retried_by_the_runtime() -> None:
    server = serve(ROOT / "cassettes", settings=Settings(faults=[Fault.parse("cut=300;times=1")]))
    start_in_thread(server)
    try:
        url = base_urls("127.0.0.1", server.server_address[1], ["openai"])["openai"]
        (scenario,) = load_scenarios(ROOT / "scenarios", only=["usage_stream"])
        conv = Conversation.model_validate(scenario.spec.input)
        clock = FakeClock()
        result = asyncio.run(
            run_turn(
                conv,
                get_profile("openai").with_base_url(url),
                transport=httpx.AsyncHTTPTransport(),
                clock=clock,
                rng=random.Random(0),
            )
        )
        assert [s.action for s in result.trace] == ["send", "wait", "send", "done"]
        assert result.trace[1].kind == "stream_interrupted"
        assert result.message is not None and result.message.usage is not None
    finally:
        server.shutdown()
        server.server_close()


def test_a_recording_from_the_emulator_is_labelled_emulated_and_never_counted_live(
    emulator: tuple[str, int], tmp_path: Path
) -> None:
    from conformance.replay.cassette import cassette_evidence, load_cassette
    from conformance.report.html import write_html

    _, port = emulator
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    url = base_urls("localhost", port, ["openai"])["openai"]  # a name, not an address: the peer decides
    record(tmp_path, "openai", mode="all", scenario_ids=["text_basic"], base_url=url, env={"OPENAI_API_KEY": CANARY})
    meta = load_cassette(tmp_path / "cassettes/openai/text_basic.yaml").meta
    assert meta["host"] == f"localhost:{port}" and meta["address"] in ("127.0.0.1", "::1")
    assert meta["source"] == "emulated" and cassette_evidence(meta) == "emulated"
    ctx = HarnessContext(root=tmp_path, runtime=ReferenceRuntime())
    (scenario,) = load_scenarios(tmp_path / "scenarios", only=["text_basic"])
    results = run_all([scenario], ["openai"], ctx)
    assert results[0].evidence == "emulated"
    matrix = build_matrix(results, ["openai"], ctx, scenario_dir=tmp_path / "scenarios")
    (provenance,) = matrix.provenance
    assert provenance.evidence == {"emulated": 1} and provenance.recorded == []
    html = write_html(matrix, tmp_path / "out").read_text()
    assert "recorded from the live providers" not in html
    assert "1 recorded from a server on this machine (not live)" in html


def test_a_recording_from_the_provider_host_is_live_evidence(tmp_path: Path) -> None:
    from conformance.replay.cassette import cassette_evidence, is_loopback, load_cassette

    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    body = load_cassette(ROOT / "cassettes/openai/text_basic.yaml").interactions[0].response.body
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, content=body, headers={"content-type": "application/json"})
    )
    record(
        tmp_path, "openai", mode="all", scenario_ids=["text_basic"], env={"OPENAI_API_KEY": CANARY}, transport=transport
    )
    meta = load_cassette(tmp_path / "cassettes/openai/text_basic.yaml").meta
    assert meta["host"] == "api.openai.com" and "address" not in meta
    assert meta["source"] == "recorded" and cassette_evidence(meta) == "recorded"
    assert [
        is_loopback(h) for h in ("127.0.0.1", "127.8.0.1:80", "[::1]:8765", "::1", "localhost:1", "a.localhost")
    ] == [True] * 6
    assert [is_loopback(h) for h in ("api.openai.com", "10.0.0.1", "", None, "[::2]", "localhost.example")] == [
        False
    ] * 6
