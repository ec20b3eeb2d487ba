"""Encoding for OpenAI and the gateways: every profile flag that changes the body."""

from __future__ import annotations

import re
from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.codecs.openai_chat import encode
from conformance.codecs.openai_chat.encode import IMAGES_FOLLOW
from conformance.exceptions import InputError
from conformance.model import Conversation
from conformance.runtime.repair.base import RepairContext
from conformance.runtime.repair.ids import rewrite_tool_ids

HISTORY: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "Be terse."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "media_type": "image/png", "data": "iVBOR"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Look it up."},
                {"type": "tool_call", "id": "call_1", "name": "lookup", "arguments": {"q": "x"}},
            ],
        },
        {"role": "tool_result", "tool_call_id": "call_1", "content": "nothing found", "is_error": True},
    ],
    "tools": [
        {
            "name": "lookup",
            "description": "Look up.",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        }
    ],
    "options": {"max_tokens": 100, "temperature": 0.5, "stop": ["END"], "stream": True, "tool_choice": "required"},
}


def body(provider: str, **update: Any) -> dict[str, Any]:
    conv = Conversation.model_validate({**HISTORY, **update})
    return encode(conv, get_profile(provider)).body


def test_openai_body() -> None:
    out = body("openai")
    assert out["messages"] == [
        {"role": "system", "content": "Be terse."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"q":"x"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Error: nothing found"},
    ]
    assert out["max_completion_tokens"] == 100 and "max_tokens" not in out
    assert out["tool_choice"] == "required"
    assert out["stream_options"] == {"include_usage": True}
    assert out["tools"][0]["function"]["name"] == "lookup"


def test_reasoning_models_drop_what_they_reject() -> None:
    out = body("openai", model="o4-mini")
    assert "temperature" not in out and "stop" not in out
    assert out["max_completion_tokens"] == 100


def test_gateways() -> None:
    mistral = body("mistral")
    assert mistral["tool_choice"] == "any" and mistral["max_tokens"] == 100 and "stream_options" not in mistral
    xai = body("xai")
    assert xai["messages"][2]["reasoning_content"] == "Look it up."
    deepseek = body("deepseek")
    assert "reasoning_content" not in deepseek["messages"][2]
    openrouter = body("openrouter")
    assert openrouter["messages"][2]["reasoning"] == "Look it up."


def test_invalid_arguments_go_back_verbatim() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_call", "id": "c", "name": "f", "arguments": {}, "raw_arguments": '{"a": '}],
        },
        {"role": "tool_result", "tool_call_id": "c", "content": "ok"},
    ]
    out = body("openai", messages=messages)
    assert out["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"a": '


def test_extra_options_pass_through() -> None:
    out = body("openai", options={"reasoning_effort": "low"})
    assert out["reasoning_effort"] == "low" and "stream" not in out


def test_request_shape_and_headers() -> None:
    conv = Conversation.model_validate({**HISTORY, "options": {"stream": True}})
    req = encode(conv, get_profile("openrouter"))
    assert (req.method, req.path, req.stream) == ("POST", "/chat/completions", True)
    assert req.headers == {"content-type": "application/json"}
    assert req.body["model"] == "anthropic/claude-sonnet-4.5"
    assert req.body["stream"] is True and "stream_options" not in req.body  # usage is always sent
    assert not any("authorization" in k.lower() for k in req.headers)


def test_system_role_from_the_profile_or_the_model() -> None:
    openai = get_profile("openai")
    developer_profile = openai.model_copy(update={"system_role": "developer"})
    conv = Conversation.model_validate(HISTORY)
    assert encode(conv, developer_profile).body["messages"][0]["role"] == "developer"
    models = {**openai.models, "o4": openai.models["o4"].model_copy(update={"system_role": "developer"})}
    per_model = openai.model_copy(update={"models": models})
    assert encode(conv.model_copy(update={"model": "o4-mini"}), per_model).body["messages"][0]["role"] == "developer"
    assert encode(conv.model_copy(update={"model": "gpt-4.1"}), per_model).body["messages"][0]["role"] == "system"


def test_max_tokens_field_and_sampling_per_model() -> None:
    deepseek = body("deepseek", model="deepseek-reasoner", options={"max_tokens": 50, "top_p": 0.9})
    assert deepseek["max_tokens"] == 50 and deepseek["top_p"] == 0.9  # accepted (and ignored) by R1
    openai = body("openai", model="o3", options={"max_tokens": 50, "top_p": 0.9, "temperature": 1.0})
    assert openai["max_completion_tokens"] == 50
    assert not {"top_p", "temperature", "max_tokens"} & set(openai)
    assert "stop" not in body("xai", model="grok-3-mini")
    assert body("xai", model="grok-2")["stop"] == ["END"]


def test_tool_choice_vocabulary() -> None:
    assert body("openai", options={"tool_choice": "auto"})["tool_choice"] == "auto"
    assert body("mistral", options={"tool_choice": "none"})["tool_choice"] == "none"
    named = {"type": "function", "function": {"name": "lookup"}}
    assert body("openai", options={"tool_choice": "lookup"})["tool_choice"] == named
    assert body("openai", options={"tool_choice": {"name": "lookup"}})["tool_choice"] == named


def test_reasoning_back_only_where_the_profile_or_model_accepts_it() -> None:
    deepseek = get_profile("deepseek")
    conv = Conversation.model_validate(HISTORY)
    assert "reasoning_content" not in encode(conv, deepseek).body["messages"][2]
    models = {
        **deepseek.models,
        "deepseek-v4": deepseek.models["deepseek-chat"].model_copy(update={"send_reasoning_back": True}),
    }
    v4 = deepseek.model_copy(update={"models": models})
    sent = encode(conv.model_copy(update={"model": "deepseek-v4-flash"}), v4).body["messages"][2]
    assert sent["reasoning_content"] == "Look it up."
    assert "reasoning" not in body("openai")["messages"][2]  # OpenAI has no reasoning field
    assert "reasoning_content" not in body("mistral")["messages"][2]


def test_assistant_text_and_calls_and_tools_without_description() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me "},
                {"type": "text", "text": "check."},
                {"type": "tool_call", "id": "call_1", "name": "f", "arguments": {}},
            ],
        },
        {"role": "tool_result", "tool_call_id": "call_1", "content": [{"type": "text", "text": "42"}]},
    ]
    out = body("openai", messages=messages, tools=[{"name": "f", "parameters": {"type": "object"}}])
    assert out["messages"][1] == {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    }
    assert out["messages"][2] == {"role": "tool", "tool_call_id": "call_1", "content": "42"}
    assert out["tools"] == [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def test_images_by_url_and_an_image_without_data_names_its_field() -> None:
    url = {"type": "image", "url": "https://example.com/cat.png"}
    out = body("openai", messages=[{"role": "user", "content": [url]}])
    assert out["messages"][0]["content"] == [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]
    bad = {"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "image", "media_type": "image/png"}]}
    with pytest.raises(InputError) as info:
        body("openai", messages=[{"role": "user", "content": "a"}, bad])
    assert info.value.where == "messages[1].content[1]"


def test_images_of_tool_results_follow_the_run_of_tool_messages() -> None:
    png = {"type": "image", "media_type": "image/png", "data": "iVBOR"}
    messages = [
        {"role": "user", "content": "Screenshots?"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_call", "id": "call_a", "name": "shot", "arguments": {}},
                {"type": "tool_call", "id": "call_b", "name": "shot", "arguments": {}},
            ],
        },
        {"role": "tool_result", "tool_call_id": "call_a", "content": [png]},
        {"role": "tool_result", "tool_call_id": "call_b", "content": [{"type": "text", "text": "none"}]},
        {"role": "user", "content": "Describe it."},
    ]
    out = body("openai", messages=messages)["messages"]
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "tool", "user", "user"]
    assert out[2] == {"role": "tool", "tool_call_id": "call_a", "content": IMAGES_FOLLOW}
    assert out[4]["content"] == [
        {"type": "text", "text": "Image(s) returned by tool call call_a:"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}},
    ]


MISTRAL_HISTORY = [
    {"role": "user", "content": "Weather in Paris and Rome?"},
    {
        "role": "assistant",
        "content": [
            {"type": "tool_call", "id": "toolu_01A09q90qw90lq917835lq9", "name": "w", "arguments": {"c": "Paris"}},
            {"type": "tool_call", "id": "gSIMJiOkT", "name": "w", "arguments": {"c": "Rome"}},
        ],
    },
    {"role": "tool_result", "tool_call_id": "toolu_01A09q90qw90lq917835lq9", "content": "18C"},
    {"role": "tool_result", "tool_call_id": "gSIMJiOkT", "content": "21C"},
]


def test_mistral_tool_ids_are_remapped_consistently() -> None:
    out = body("mistral", messages=MISTRAL_HISTORY)["messages"]
    new_id = out[1]["tool_calls"][0]["id"]
    assert re.fullmatch(r"[a-zA-Z0-9]{9}", new_id)
    assert out[2]["tool_call_id"] == new_id
    assert out[1]["tool_calls"][1]["id"] == out[3]["tool_call_id"] == "gSIMJiOkT"  # conforming: kept
    assert body("mistral", messages=MISTRAL_HISTORY)["messages"] == out  # deterministic
    assert body("openai", messages=MISTRAL_HISTORY)["messages"][1]["tool_calls"][0]["id"].startswith("toolu_")


def test_encode_remaps_ids_as_the_repair_rule_does() -> None:
    """After the runtime's `rewrite_tool_ids` repair there is nothing left to remap; without it,
    encoding picks the very same ids."""
    profile = get_profile("mistral")
    conv = Conversation.model_validate({"messages": MISTRAL_HISTORY})
    repaired, _ = rewrite_tool_ids(list(conv.messages), RepairContext(profile=profile, model=profile.default_model))
    after_repair = encode(conv.model_copy(update={"messages": repaired}), profile).body
    assert encode(conv, profile).body == after_repair


def test_openrouter_takes_a_thinking_budget_in_its_reasoning_object() -> None:
    profile = get_profile("openrouter")

    def body(budget: int) -> dict[str, Any]:
        conv = Conversation.model_validate(
            {"messages": [{"role": "user", "content": "hi"}], "options": {"thinking_budget": budget}}
        )
        return encode(conv, profile).body

    assert body(2048)["reasoning"] == {"max_tokens": 2048}
    assert body(0)["reasoning"] == {"enabled": False}
    with pytest.raises(InputError, match="thinking_budget"):
        body(-1)


def test_chat_completions_without_a_budget_field_does_not_send_one() -> None:
    conv = Conversation.model_validate(
        {"messages": [{"role": "user", "content": "hi"}], "options": {"thinking_budget": 2048}}
    )
    for name in ("openai", "deepseek", "xai", "groq", "fireworks", "mistral"):
        sent = encode(conv, get_profile(name)).body
        assert "reasoning" not in sent and "thinking_budget" not in sent, name


PREFILL: list[dict[str, Any]] = [
    {"role": "user", "content": "Name a colour."},
    {"role": "assistant", "content": "Blue"},
]


def test_mistral_marks_a_final_assistant_message_as_a_prefix() -> None:
    """Mistral continues a final assistant message only with `prefix: true` (and otherwise
    rejects a conversation that does not end with a user or tool message)."""
    out = body("mistral", messages=PREFILL)
    assert out["messages"][-1] == {"role": "assistant", "content": "Blue", "prefix": True}
    history = body("mistral", messages=[*PREFILL, {"role": "user", "content": "Another."}])
    assert all("prefix" not in m for m in history["messages"])


@pytest.mark.parametrize("provider", ["openai", "openrouter", "deepseek", "groq"])
def test_other_chat_servers_take_the_final_assistant_message_as_is(provider: str) -> None:
    assert body(provider, messages=PREFILL)["messages"][-1] == {"role": "assistant", "content": "Blue"}
