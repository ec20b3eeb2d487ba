"""The official SDKs as runtimes under test: known rows pass, known differences stay pinned, and
their built-in retries are judged by the turn check on the harness clock."""

from __future__ import annotations

import copy
import importlib
import time
from typing import TYPE_CHECKING, Any

import pytest

from tests.examples import library_warnings as warn
from tests.lazy import lazy, require

require("openai", "anthropic", "httpx2")

from conformance.capabilities import get_profile  # noqa: E402
from conformance.replay.cassette import load_cassette  # noqa: E402
from conformance.replay.player import CassetteTransport  # noqa: E402
from conformance.runtime.clock import FakeClock  # noqa: E402
from conformance.runtime.protocol import TurnRequest, capabilities_of  # noqa: E402
from tests.examples.rows import ROOT, rows  # noqa: E402

if TYPE_CHECKING:
    from examples import anthropic_sdk, openai_sdk
else:  # the SDKs imported by the first test that runs (the parameters below build runtimes in the test)
    anthropic_sdk = lazy("examples.anthropic_sdk")
    openai_sdk = lazy("examples.openai_sdk")

# the anthropic SDK warns on every request to a model on its deprecation list (the cassettes' model is one)
pytestmark = warn.DEPRECATED_MODEL


def test_the_sdks_offer_only_what_they_have() -> None:
    assert capabilities_of(openai_sdk.make()) == {"decode", "turn"}
    assert capabilities_of(anthropic_sdk.make()) == {"decode", "turn"}


def test_openai_sdk_rows() -> None:
    got = rows(
        openai_sdk.make(),
        {
            "text_basic",
            "tool_call_stream",
            "retry_429_retry_after",
            "stream_truncated",
            "stream_ended_cleanly",
            "retry_auth_rotation",
            "repair_orphan_tool_result",
        },
        ["openai"],
    )
    verdicts = {key[0]: r.verdict for key, r in got.items()}
    assert verdicts["text_basic"] == "pass"
    assert verdicts["tool_call_stream"] == "pass"
    assert verdicts["retry_429_retry_after"] == "pass"  # waits the 30 s the provider asked for
    # a connection that drops mid-stream: the SDK raises APIConnectionError, its snapshot is the partial
    assert verdicts["stream_truncated"] == "pass"
    # the same stream ended cleanly: the SDK's accumulator reports it as a complete message
    assert verdicts["stream_ended_cleanly"] == "fail"
    assert "message" in got[("stream_ended_cleanly", "openai")].actual
    # one client, one key: the adapter declares key rotation not offered, a gap rather than a defect
    assert verdicts["retry_auth_rotation"] == "not_offered"
    assert verdicts["repair_orphan_tool_result"] == "skipped"  # the SDK has no history repair


def test_anthropic_sdk_rows() -> None:
    got = rows(
        anthropic_sdk.make(),
        {
            "text_basic",
            "thinking_signature",
            "redacted_thinking_stream",
            "retry_429_retry_after",
            "retry_overloaded_backoff",
        },
        ["anthropic"],
    )
    verdicts = {key[0]: r.verdict for key, r in got.items()}
    for row in (
        "text_basic",
        "thinking_signature",
        "redacted_thinking_stream",
        "retry_429_retry_after",
        "retry_overloaded_backoff",
    ):
        assert verdicts[row] == "pass", got[(row, "anthropic")].reason


def _turn(
    runtime: Any, provider: str, cassette: str, settings: dict[str, Any]
) -> tuple[dict[str, Any], FakeClock, CassetteTransport]:
    clock = FakeClock()
    transport = CassetteTransport(load_cassette(ROOT / "cassettes" / provider / cassette), clock=clock)
    request = TurnRequest(
        provider=provider,
        conversation={"messages": [{"role": "user", "content": "Say hi."}], "options": {"max_tokens": 32}},
        transport=transport,
        base_url=get_profile(provider).base_url,
        keys=["replay-key-0"],
        clock=clock,
        settings=settings,
    )
    return runtime.turn(request), clock, transport


@pytest.mark.parametrize(
    ("make", "provider", "module"),
    [
        (lambda: openai_sdk.make(), "openai", "openai._base_client"),
        (lambda: anthropic_sdk.make(), "anthropic", "anthropic._base_client"),
    ],
)
def test_the_sdk_waits_out_retry_after_on_the_harness_clock(make: Any, provider: str, module: str) -> None:
    """The cassette's first answer is 429 with `retry-after: 30`: the SDK's own loop sleeps 30 s —
    on the fake clock, so the test takes no time — and sends the same request again."""
    runtime = make()
    started = time.monotonic()
    outcome, clock, transport = _turn(runtime, provider, "retry_429_retry_after.yaml", {"policy": {"max_attempts": 3}})
    assert clock.sleeps == [30.0]
    assert [r.interaction for r in transport.log] == [0, 1]
    assert [r.at for r in transport.log] == [0.0, 30.0]  # the second request went out after the wait
    assert outcome["message"]["content"] == [{"type": "text", "text": "Hi!"}]
    assert time.monotonic() - started < 5
    assert importlib.import_module(module).time is time  # the patch is undone


def test_without_retries_the_sdk_returns_the_typed_error() -> None:
    outcome, clock, transport = _turn(
        openai_sdk.make(), "openai", "retry_429_retry_after.yaml", {"policy": {"max_attempts": 1}}
    )
    assert clock.sleeps == []
    assert outcome["error"]["kind"] == "rate_limited"
    assert outcome["error"]["status"] == 429
    assert outcome["partial"] is None
    assert transport.unplayed() == [1]


def _hinted(provider: str, hints: dict[str, str]) -> Any:
    """The recorded 429-then-200 cassette with other retry hints on the 429 (authored here)."""
    cassette = copy.deepcopy(load_cassette(ROOT / "cassettes" / provider / "retry_429_retry_after.yaml"))  # cached
    headers = cassette.interactions[0].response.headers
    for name in [k for k in headers if k.lower() == "retry-after"]:
        del headers[name]
    headers.update({name: [value] for name, value in hints.items()})
    return cassette


def _turn_on(runtime: Any, provider: str, cassette: Any) -> tuple[dict[str, Any], FakeClock, CassetteTransport]:
    clock = FakeClock()
    transport = CassetteTransport(cassette, clock=clock)
    request = TurnRequest(
        provider=provider,
        conversation={"messages": [{"role": "user", "content": "Say hi."}], "options": {"max_tokens": 32}},
        transport=transport,
        base_url=get_profile(provider).base_url,
        keys=["replay-key-0"],
        clock=clock,
        settings={"policy": {"max_attempts": 3}},
    )
    return runtime.turn(request), clock, transport


@pytest.mark.parametrize(
    ("make", "provider"), [(lambda: openai_sdk.make(), "openai"), (lambda: anthropic_sdk.make(), "anthropic")]
)
def test_retry_after_ms_is_preferred_to_retry_after(make: Any, provider: str) -> None:
    outcome, clock, _ = _turn_on(make(), provider, _hinted(provider, {"retry-after-ms": "1500", "retry-after": "30"}))
    assert clock.sleeps == [1.5]
    assert "message" in outcome


def test_a_hint_beyond_two_minutes_openai_gives_up_anthropic_waits() -> None:
    """The openai SDK does not retry when the hint exceeds its 120 s ceiling; the anthropic SDK
    waits whatever the provider asks."""
    outcome, clock, transport = _turn_on(openai_sdk.make(), "openai", _hinted("openai", {"retry-after": "600"}))
    assert clock.sleeps == []
    assert outcome["error"]["kind"] == "rate_limited"
    assert transport.unplayed() == [1]
    outcome, clock, _ = _turn_on(anthropic_sdk.make(), "anthropic", _hinted("anthropic", {"retry-after": "600"}))
    assert clock.sleeps == [600.0]
    assert "message" in outcome


PARITY_ROWS = {
    "text_basic",
    "tool_call_stream",
    "parallel_tool_calls_stream",
    "stream_truncated",
    "stream_ended_cleanly",
    "stream_error_midstream",
    "error_overloaded",
    "retry_429_retry_after",
    "retry_overloaded_backoff",
    "retry_connection_reset",
}
"""Decode and turn rows, streamed and not, answers and errors: where the async client's own code
(its async stream, its async retry loop on `anyio.sleep`) could read otherwise than the sync one's."""


@pytest.mark.parametrize(
    ("sync", "async_", "provider"),
    [
        (lambda: openai_sdk.make(), lambda: openai_sdk.make_async(), "openai"),
        (lambda: anthropic_sdk.make(), lambda: anthropic_sdk.make_async(), "anthropic"),
    ],
    ids=["openai", "anthropic"],
)
def test_the_async_client_runs_its_rows_and_reads_them_as_the_sync_one(
    sync: Any, async_: Any, provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = async_()
    assert capabilities_of(runtime) == {"decode", "turn"}
    assert runtime.name.startswith(f"{provider}-sdk-async ")
    plain = rows(sync(), PARITY_ROWS, [provider])
    module = importlib.import_module(f"examples.{provider}_sdk")  # the module itself, patched below

    def sync_call(*args: Any) -> Any:
        raise AssertionError("the async runtime went through the sync client")

    monkeypatch.setattr(module, "_call", sync_call)
    awaited = rows(runtime, PARITY_ROWS, [provider])
    assert set(awaited) == set(plain) and len(plain) >= 6
    judged = {key: (r.verdict, r.actual) for key, r in awaited.items()}
    assert judged == {key: (r.verdict, r.actual) for key, r in plain.items()}
    assert {r.verdict for r in awaited.values()} >= {"pass"}
