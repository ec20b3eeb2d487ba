"""Compatibility flags through `prepare`: what the model cannot honour is refused, never dropped
unless the caller opts into `drop_unsupported`."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from conformance.capabilities import get_profile, matrix_providers
from conformance.exceptions import UnsupportedFeatureError
from conformance.model import Conversation
from conformance.runtime.clock import FakeClock
from conformance.runtime.context.api import handle
from conformance.runtime.prepare import prepare
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.turn import run_turn


def _conv(model: str | None = None, **options: Any) -> dict[str, Any]:
    return {
        "messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Hi"}],
        "options": {"max_tokens": 300, **options},
        **({"model": model} if model else {}),
    }


@pytest.mark.parametrize(
    ("provider", "model", "option", "value"),
    [
        ("openai", "o3", "temperature", 0.2),
        ("openai", "o4-mini", "top_p", 0.9),
        ("azure", "o3", "stop", ["###"]),
        ("openai_responses", "gpt-4.1-mini", "stop", ["###"]),
        ("xai", "grok-3-mini", "stop", ["###"]),
    ],
)
def test_an_option_the_model_rejects_is_a_typed_error(provider: str, model: str, option: str, value: Any) -> None:
    with pytest.raises(UnsupportedFeatureError) as info:
        ReferenceRuntime().encode(_conv(model, **{option: value}), provider)
    assert info.value.where == f"options.{option}"
    assert f"{provider} model {model!r}" in str(info.value)
    assert option in str(info.value)


def test_drop_unsupported_sends_the_request_without_them_and_says_so() -> None:
    conv = Conversation.model_validate(_conv("o3", temperature=0.2, top_p=0.9, stop=["###"], drop_unsupported=True))
    prepared = prepare(conv, get_profile("openai"))
    assert [w.split(":")[0] for w in prepared.warnings] == ["temperature removed", "top_p removed", "stop removed"]
    body = ReferenceRuntime().wire_request(conv, get_profile("openai")).body
    assert not {"temperature", "top_p", "stop", "drop_unsupported"} & set(body)
    assert body["max_completion_tokens"] == 300


@pytest.mark.parametrize("provider", matrix_providers())
def test_the_opt_in_never_reaches_the_wire(provider: str) -> None:
    body = ReferenceRuntime().encode(_conv(temperature=0.2, drop_unsupported=True), provider)
    assert "drop_unsupported" not in str(body)


def test_accepted_options_are_sent_whatever_the_opt_in() -> None:
    for drop in (False, True):
        body = ReferenceRuntime().encode(
            _conv("gpt-4.1-mini", temperature=0.2, stop=["#"], drop_unsupported=drop), "openai"
        )
        assert (body["temperature"], body["stop"]) == (0.2, ["#"])


@pytest.mark.parametrize(
    ("provider", "model"), [("azure_responses", "o3-pro"), ("azure_responses", "gpt-5-pro"), ("azure", "o1")]
)
def test_a_stream_from_a_model_that_does_not_stream_is_refused_even_with_the_opt_in(provider: str, model: str) -> None:
    for drop in (False, True):
        with pytest.raises(UnsupportedFeatureError, match="does not stream") as info:
            ReferenceRuntime().encode(_conv(model, stream=True, drop_unsupported=drop), provider)
        assert info.value.where == "options.stream"
    assert "stream" not in ReferenceRuntime().encode(_conv(model), provider)


def test_the_non_streaming_entries_are_exact_prefixes() -> None:
    azure = get_profile("azure_responses")
    assert not azure.model_info("o3-pro-2025-06-10").streaming
    assert azure.model_info("o3").streaming and azure.model_info("gpt-5").streaming
    assert azure.model_info("o1-mini").streaming  # its own entry, not o1's
    assert get_profile("openai_responses").model_info("o3-pro").streaming  # an Azure fact, not OpenAI's


def test_the_context_capability_reports_the_error_as_data() -> None:
    answer = handle({"op": "encode", "provider": "openai", "conversation": _conv("o3", temperature=0.2)})
    assert answer["error"]["kind"] == "unsupported_feature"
    assert answer["error"]["where"] == "options.temperature"


def test_the_turn_loop_refuses_before_sending_anything() -> None:
    sent: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    for provider, conv, stream in [
        ("openai", _conv("o3", temperature=0.2), None),
        ("azure_responses", _conv("o3-pro"), True),  # the `stream` override is checked too
    ]:
        with pytest.raises(UnsupportedFeatureError):
            asyncio.run(
                run_turn(
                    Conversation.model_validate(conv),
                    get_profile(provider),
                    transport=httpx.MockTransport(record),
                    clock=FakeClock(),
                    rng=random.Random(1),
                    keys="k",
                    stream=stream,
                )
            )
    assert sent == []


SEARCH = {
    "openai_responses": [{"type": "web_search"}],
    "anthropic": [{"type": "web_search_20250305", "name": "web_search"}],
}


@pytest.mark.parametrize("provider", matrix_providers())
def test_server_tools_are_sent_where_the_dialect_has_them_and_refused_elsewhere(provider: str) -> None:
    from conformance.codecs import codec_for

    profile = get_profile(provider)
    tools = SEARCH.get(profile.dialect, [{"type": "web_search"}])
    conv = _conv(server_tools=tools)
    if codec_for(profile).server_tools:
        body = ReferenceRuntime().encode(conv, provider)
        assert body["tools"] == tools
        assert "server_tools" not in body
    else:  # never an unknown field in the body, never silently left out
        with pytest.raises(UnsupportedFeatureError) as info:
            ReferenceRuntime().encode(conv, provider)
        assert info.value.where == "options.server_tools"
