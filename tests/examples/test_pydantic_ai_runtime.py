"""pydantic-ai's model classes as a runtime under test."""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING

import pytest

from conformance.capabilities import get_profile
from conformance.replay.cassette import load_cassette
from conformance.replay.player import CassetteTransport
from conformance.runtime.clock import FakeClock
from conformance.runtime.protocol import TurnRequest, capabilities_of
from tests.examples import library_warnings as warn
from tests.examples.rows import ROOT, rows
from tests.lazy import lazy, require

require("pydantic_ai", "httpx2")

if TYPE_CHECKING:
    from examples import pydantic_ai_runtime
else:  # pydantic-ai imported by the first test that runs
    pydantic_ai_runtime = lazy("examples.pydantic_ai_runtime")

# the anthropic SDK warns on every request to a model on its deprecation list (the cassettes' model is one)
pytestmark = warn.DEPRECATED_MODEL


def test_capabilities() -> None:
    assert capabilities_of(pydantic_ai_runtime.make()) == {"encode", "decode", "turn"}
    assert capabilities_of(pydantic_ai_runtime.make_decoder()) == {"decode"}


def test_its_reading_of_responses() -> None:
    got = rows(
        pydantic_ai_runtime.make_decoder(),
        {"text_basic", "tool_call_stream", "error_rate_limit", "refusal_stream"},
        ["openai", "anthropic"],
    )
    for key in [
        ("text_basic", "openai"),
        ("error_rate_limit", "openai"),
        ("tool_call_stream", "anthropic"),
        ("error_rate_limit", "anthropic"),
    ]:
        assert got[key].verdict == "pass", got[key].reason
    # its finish reasons have no `refusal` (Anthropic's becomes `content_filter`), but it keeps the
    # provider's own value, and OpenAI's refusal text, in `provider_details`: the adapter reads them
    refusal = got[("refusal_stream", "anthropic")]
    assert refusal.verdict == "pass", refusal.reason
    assert refusal.actual["message"]["stop_reason"] == "refusal"
    # on OpenAI it drops the raw `finish_reason` of a refusal: that stays red
    refusal = got[("refusal_stream", "openai")]
    assert refusal.verdict == "fail"
    assert [entry.path for entry in refusal.diff] == ["message.raw_stop_reason"]


def test_its_own_requests_are_read_as_the_provider_reads_them() -> None:
    """Its requests carry an explicit `"stream": false` that the recorded requests leave out; OpenAI
    reads both alike, so the turn reaches its retry loop and waits out the hint."""
    got = rows(pydantic_ai_runtime.make(), {"retry_429_retry_after"}, ["openai"])
    row = got[("retry_429_retry_after", "openai")]
    assert row.verdict == "pass", row.reason


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_its_retries_wait_out_retry_after_on_the_harness_clock(provider: str) -> None:
    """The recorded 429-then-200 exchange, with the requests recorded as pydantic-ai words them (its
    own `encode`): the SDK's async retry loop underneath waits the 30 s on the fake clock."""
    runtime = pydantic_ai_runtime.make()
    conversation = {"messages": [{"role": "user", "content": "Say hi."}], "options": {"max_tokens": 32}}
    cassette = copy.deepcopy(load_cassette(ROOT / "cassettes" / provider / "retry_429_retry_after.yaml"))
    own = json.dumps(runtime.encode(conversation, provider)).encode()
    for interaction in cassette.interactions:
        interaction.request.body = own
    clock = FakeClock()
    transport = CassetteTransport(cassette, clock=clock)
    outcome = runtime.turn(
        TurnRequest(
            provider=provider,
            conversation=conversation,
            transport=transport,
            base_url=get_profile(provider).base_url,
            keys=["replay-key-0"],
            clock=clock,
            settings={"policy": {"max_attempts": 3}},
        )
    )
    assert clock.sleeps == [30.0]
    assert transport.unplayed() == []
    assert outcome["message"]["content"] == [{"type": "text", "text": "Hi!"}]


def test_gemini_tool_calls_get_fresh_random_ids_which_are_not_judged() -> None:
    """Gemini sends no tool-call ids; pydantic-ai makes up a random one per decoding. An id the wire
    does not carry is the runtime's own: its value is not judged (the reason notes it). Its `stop`
    on a message of calls is Gemini's own STOP (Gemini has no tool-call reason): noted, not red."""
    got = rows(pydantic_ai_runtime.make_decoder(), {"text_basic", "tool_call_single"}, ["gemini"])
    assert got[("text_basic", "gemini")].verdict == "pass", got[("text_basic", "gemini")].reason
    row = got[("tool_call_single", "gemini")]
    assert row.verdict == "pass", row.reason
    assert row.actual["message"]["stop_reason"] == "stop"  # shown as answered
    assert row.actual["message"]["content"][0]["id"].startswith("pyd_ai_")
    assert "the wire carries no id" in row.reason
    assert "'stop' is the provider's own 'STOP'" in row.reason
    again = rows(pydantic_ai_runtime.make_decoder(), {"tool_call_single"}, ["gemini"])
    assert (
        again[("tool_call_single", "gemini")].actual["message"]["content"][0]["id"]
        != row.actual["message"]["content"][0]["id"]
    )
