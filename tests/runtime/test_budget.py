"""Max-tokens budgeting and model-rejected options."""

from __future__ import annotations

import math

import pytest

from conformance.capabilities import get_profile
from conformance.exceptions import UnsupportedFeatureError
from conformance.model import Options, ToolSpec
from conformance.runtime.budget import (
    effective_max_tokens,
    estimate_input_tokens,
    filter_options,
    max_tokens_field,
    rejected_options,
)
from tests.runtime.builders import user


def test_estimate_is_characters_over_four_rounded_up() -> None:
    messages = [user("x" * 101)]
    tools = [ToolSpec(name="t")]
    estimate = estimate_input_tokens(messages, tools)
    assert estimate == math.ceil(
        len(
            '{"messages":[{"content":[{"text":"' + "x" * 101 + '","type":"text"}],"role":"user"}],'
            '"tools":[{"description":"","name":"t","parameters":{"properties":{},"type":"object"}}]}'
        )
        / 4
    )


def test_requested_is_capped_by_model_max_output() -> None:
    anthropic = get_profile("anthropic")
    assert effective_max_tokens(100_000, anthropic, "claude-3-5-haiku", [user("hi")]) == 8_192
    assert effective_max_tokens(500, anthropic, "claude-3-5-haiku", [user("hi")]) == 500


def test_default_max_tokens_when_not_requested() -> None:
    anthropic = get_profile("anthropic")
    assert effective_max_tokens(None, anthropic, "claude-sonnet-4-5", [user("hi")]) == anthropic.default_max_tokens


def test_capped_by_room_left_in_the_context_window() -> None:
    ollama = get_profile("ollama")  # fallback model: 8192 context, 4096 output
    messages = [user("x" * 28_000)]
    room = 8_192 - estimate_input_tokens(messages)
    assert 0 < room < 4_096
    assert effective_max_tokens(4_096, ollama, "unknown-model", messages) == room


def test_never_below_one() -> None:
    ollama = get_profile("ollama")
    assert effective_max_tokens(4_096, ollama, "unknown-model", [user("x" * 100_000)]) == 1
    assert effective_max_tokens(0, ollama, "unknown-model", [user("x")]) == 1


def test_max_tokens_field_for_reasoning_models() -> None:
    openai = get_profile("openai")
    assert max_tokens_field(openai, "o3-mini") == "max_completion_tokens"
    assert max_tokens_field(get_profile("gemini"), None) == "maxOutputTokens"
    assert max_tokens_field(get_profile("ollama"), "llama3.2") == "num_predict"


def test_filter_options_refuses_what_the_model_rejects() -> None:
    options = Options(temperature=0.2, stop=["END"], max_tokens=10)
    with pytest.raises(UnsupportedFeatureError, match="openai model 'o3' does not accept temperature") as info:
        filter_options(options, get_profile("openai"), "o3")
    assert info.value.where == "options.temperature"
    same, none = filter_options(options, get_profile("openai"), "gpt-4.1")
    assert same == options
    assert none == []


def test_filter_options_drops_what_the_model_rejects_when_asked_to() -> None:
    options = Options(temperature=0.2, top_p=0.9, stop=["END"], max_tokens=10, drop_unsupported=True)
    kept, warnings = filter_options(options, get_profile("openai"), "o3")
    assert (kept.temperature, kept.top_p, kept.stop, kept.max_tokens) == (None, None, None, 10)
    assert warnings == [f"{f} removed: openai model 'o3' does not accept it" for f in ("temperature", "top_p", "stop")]
    assert options.temperature == 0.2  # the caller's options are not modified


def test_top_p_goes_with_temperature() -> None:
    assert rejected_options(Options(top_p=0.5), get_profile("openai"), "o3-mini") == ["top_p"]
    assert rejected_options(Options(top_p=0.5), get_profile("openai"), "gpt-4o") == []


def test_an_empty_stop_list_asks_for_nothing() -> None:
    assert rejected_options(Options(stop=[]), get_profile("xai"), "grok-3-mini") == []


def test_filter_options_xai_reasoning_rejects_stop_only() -> None:
    with pytest.raises(UnsupportedFeatureError) as info:
        filter_options(Options(temperature=0.5, stop=["x"]), get_profile("xai"), "grok-3-mini")
    assert info.value.where == "options.stop"
    kept, warnings = filter_options(
        Options(temperature=0.5, stop=["x"], drop_unsupported=True), get_profile("xai"), "grok-3-mini"
    )
    assert kept.temperature == 0.5
    assert kept.stop is None
    assert warnings == ["stop removed: xai model 'grok-3-mini' does not accept it"]


def test_the_responses_api_has_no_stop() -> None:
    for provider in ("openai_responses", "azure_responses", "xai_responses", "openrouter_responses"):
        assert rejected_options(Options(stop=["x"]), get_profile(provider), None) == ["stop"], provider


def test_a_required_max_tokens_is_clamped_even_when_not_requested() -> None:
    """Anthropic requires max_tokens: a ~199k-token prompt on a 200k window gets what is left,
    not the profile default of 4096 (which the API would reject as exceeding the window)."""
    from conformance.runtime.reference import ReferenceRuntime

    text = "x" * (199_000 * 4 - 200)
    conv = {"messages": [{"role": "user", "content": text}], "model": "claude-sonnet-4-5"}
    body = ReferenceRuntime().encode(conv, "anthropic")
    messages = [user(text)]
    room = 200_000 - estimate_input_tokens(messages)
    assert 0 < room < 4_096
    assert body["max_tokens"] == room


def test_fail_early_when_no_room_is_left() -> None:
    import pytest

    from conformance.exceptions import ContextBudgetError
    from conformance.model import Conversation
    from conformance.runtime.prepare import prepare

    anthropic = get_profile("anthropic")
    conv = Conversation(messages=[user("x" * 900_000)], model="claude-sonnet-4-5")
    assert effective_max_tokens(None, anthropic, "claude-sonnet-4-5", conv.messages) == 1
    with pytest.raises(ContextBudgetError, match="claude-sonnet-4-5"):
        prepare(conv, anthropic, fail_early=True)
    assert prepare(conv, anthropic).conversation.options.max_tokens == 1
