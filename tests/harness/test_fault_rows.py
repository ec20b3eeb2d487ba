"""The fault rows judge what they replay: a connection that drops mid-body reaches `decode` as the
chunks that arrived followed by the transport's error, a clean end as the chunks alone; the
reference reads both and stays green, and each mutant turns its rows red."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import httpx
import pytest

from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.replay.cassette import load_cassette
from conformance.runtime.dropped import DroppedChunks, drop_error, received
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import fault_mutants

ROOT = Path(__file__).resolve().parents[2]
FAULT_ROWS = ["stream_truncated", "stream_ended_cleanly", "response_dropped", "retry_connection_reset"]
PROVIDERS = ["openai", "anthropic", "gemini", "ollama", "openai_responses", "perplexity"]


@pytest.fixture(scope="module")
def scenarios() -> list[Scenario]:
    return load_scenarios(ROOT / "scenarios", only=FAULT_ROWS)


def _verdicts(runtime: object, scenarios: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    return {(r.scenario, r.provider): r for r in run_all(scenarios, PROVIDERS, ctx)}


def test_each_fault_cassette_says_how_it_ends() -> None:
    endings: dict[str, object] = {
        "stream_truncated": "drop",
        "stream_ended_cleanly": "clean_end",
        "response_dropped": "drop",
        "retry_connection_reset": {0: "reset"},
    }
    for scenario, ending in endings.items():
        paths = sorted(ROOT.glob(f"cassettes/*/{scenario}.yaml"))
        assert len(paths) == 20, scenario
        assert all(load_cassette(p).meta.get("fault") == ending for p in paths), scenario


def test_the_reference_reads_every_fault_row_green(scenarios: list[Scenario]) -> None:
    got = _verdicts(ReferenceRuntime(), scenarios)
    assert len(got) == len(FAULT_ROWS) * len(PROVIDERS)
    assert {k: r.reason for k, r in got.items() if r.verdict != "pass"} == {}


class _Recording(ReferenceRuntime):
    """The reference, keeping what each `decode` received."""

    def __init__(self) -> None:
        self.received: dict[str, tuple[list[bytes], BaseException | None]] = {}

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, object]:
        self.received[provider] = (received(chunks), drop_error(chunks))
        return super().decode(provider, status, headers, chunks, stream)


def test_decode_receives_the_chunks_then_the_transport_error(scenarios: list[Scenario]) -> None:
    for scenario in (s for s in scenarios if s.check == "decode"):
        runtime = _Recording()
        ctx = HarnessContext(root=ROOT, runtime=runtime)
        run_all([scenario], ["openai"], ctx)
        chunks, error = runtime.received["openai"]
        body = load_cassette(ROOT / f"cassettes/openai/{scenario.id}.yaml").interactions[0].response.body
        assert b"".join(chunks) == body, scenario.id
        if scenario.id == "stream_ended_cleanly":
            assert error is None
        else:
            assert isinstance(error, httpx.RemoteProtocolError), scenario.id
            assert "peer closed connection without sending complete message body" in str(error)


def test_dropped_chunks_raise_after_the_last_chunk_each_time_they_are_read() -> None:
    chunks = DroppedChunks([b"a", b"b"])
    for _ in range(2):
        seen: list[bytes] = []
        iterator = iter(chunks)
        seen += [next(iterator), next(iterator)]
        with pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"):
            next(iterator)
        assert seen == [b"a", b"b"]
    with pytest.raises(httpx.RemoteProtocolError):
        b"".join(chunks)
    assert len(chunks) == 2 and chunks[0] == b"a" and received(chunks) == [b"a", b"b"]
    assert drop_error([b"a"]) is None and drop_error(chunks) is chunks.error
    for copied in (copy.deepcopy(chunks), pickle.loads(pickle.dumps(chunks))):  # a worker process gets it whole
        assert received(copied) == [b"a", b"b"] and isinstance(drop_error(copied), httpx.RemoteProtocolError)


def test_a_drop_after_the_terminal_event_keeps_the_answer() -> None:
    body = load_cassette(ROOT / "cassettes/openai/usage_stream.yaml").interactions[0].response.body
    headers = {"content-type": "text/event-stream"}
    clean = ReferenceRuntime().decode("openai", 200, headers, [body], True)
    assert ReferenceRuntime().decode("openai", 200, headers, DroppedChunks([body]), True) == clean
    cut = ReferenceRuntime().decode("openai", 200, headers, DroppedChunks([body[:300]]), True)
    assert cut["error"]["kind"] == "stream_interrupted" and "connection dropped" in cut["error"]["message"]
    assert cut["partial"]["error"] == cut["error"]


RED: dict[type[ReferenceRuntime], tuple[set[str], str]] = {
    # the JSON cut short is parsed (a crash) instead of read as an interrupted answer
    fault_mutants.ReadsADropAsACleanEnd: ({"response_dropped"}, "error"),
    # the transport's error escapes decode wherever the connection dropped
    fault_mutants.LetsTheDropEscape: ({"stream_truncated", "response_dropped"}, "error"),
    # a stream without its terminal event passed off as a complete message
    fault_mutants.TakesACutStreamAsComplete: ({"stream_truncated", "stream_ended_cleanly"}, "fail"),
    # a reset before any byte ends the turn instead of being retried
    fault_mutants.GivesUpOnAReset: ({"retry_connection_reset"}, "fail"),
}


@pytest.mark.parametrize("mutant", list(RED), ids=lambda m: m.__name__)
def test_each_fault_mutant_turns_its_rows_red(mutant: type[ReferenceRuntime], scenarios: list[Scenario]) -> None:
    got = _verdicts(mutant(), scenarios)
    rows, verdict = RED[mutant]
    red = {scenario for (scenario, _), r in got.items() if r.verdict != "pass"}
    assert red == rows
    assert {r.verdict for (scenario, _), r in got.items() if scenario in rows} == {verdict}


def test_over_json_lines_a_drop_is_the_chunks_and_dropped_true(scenarios: list[Scenario]) -> None:
    import sys

    from conformance.runtime.process import ProcessRuntime

    adapter = f"{sys.executable} {ROOT / 'tests/runtime/oop_reference.py'}"
    proc = ProcessRuntime(adapter)
    sent: list[dict[str, object]] = []
    call = proc.call

    def spy(method: str, params: dict[str, object]) -> object:
        if method == "decode":
            sent.append(params)
        return call(method, params)

    proc.call = spy  # type: ignore[method-assign]
    try:
        ctx = HarnessContext(root=ROOT, runtime=proc, runtime_name="r")
        got = {(r.scenario, r.provider): r.verdict for r in run_all(scenarios, ["openai", "anthropic"], ctx)}
    finally:
        proc.close()
    # the reset is acted out on the loopback connection (TCP RST) and retried by the program
    assert set(got.values()) == {"pass"}
    # the field is there only when the connection dropped: a program written before it reads the rest as before
    assert sorted(bool(p.get("dropped", False)) for p in sent) == [False] * 2 + [True] * 4
