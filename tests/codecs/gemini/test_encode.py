"""Gemini request encoding (§4.2): roles, parts, signatures back on their parts, alternation."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from conformance.codecs.gemini import decode, encode
from conformance.exceptions import InputError
from conformance.model import Conversation
from tests.codecs.gemini.helpers import PROFILE


def conv(messages: list[dict[str, Any]], **extra: Any) -> Conversation:
    return Conversation.model_validate({"messages": messages, **extra})


def body(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return encode(conv(messages, **extra), PROFILE).body


def test_basic_request_shape_path_and_headers() -> None:
    request = encode(
        conv(
            [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Weather in Paris?"},
            ]
        ),
        PROFILE,
    )
    assert request.method == "POST"
    assert request.path == "/models/gemini-2.5-flash:generateContent"
    assert request.stream is False
    assert request.headers == {"content-type": "application/json"}
    assert request.body == {
        "systemInstruction": {"parts": [{"text": "You are terse."}]},
        "contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}],
    }


def test_streaming_path_and_explicit_model() -> None:
    request = encode(
        conv([{"role": "user", "content": "hi"}], model="gemini-3-pro-preview", options={"stream": True}),
        PROFILE,
    )
    assert request.path == "/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
    assert request.stream is True


def test_images_inline_data_url_and_file_uri() -> None:
    contents = body(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Describe"},
                    {"type": "image", "media_type": "image/png", "data": "iVBOR"},
                    {"type": "image", "url": "data:image/jpeg;base64,/9j/4A"},
                    {"type": "image", "url": "https://example.com/cat.webp", "media_type": "image/webp"},
                ],
            }
        ]
    )["contents"]
    assert contents[0]["parts"] == [
        {"text": "Describe"},
        {"inlineData": {"mimeType": "image/png", "data": "iVBOR"}},
        {"inlineData": {"mimeType": "image/jpeg", "data": "/9j/4A"}},
        {"fileData": {"fileUri": "https://example.com/cat.webp", "mimeType": "image/webp"}},
    ]


def test_inline_image_without_media_type_names_the_field() -> None:
    with pytest.raises(InputError, match=r"messages\[0\]\.content\[0\]"):
        body([{"role": "user", "content": [{"type": "image", "data": "iVBOR"}]}])


def test_assistant_parts_carry_their_signatures_back() -> None:
    contents = body(
        [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "need the tool", "signature": "T1"},
                    {"type": "text", "text": "Let me check.", "signature": "X1"},
                    {
                        "type": "tool_call",
                        "id": "call_0",
                        "name": "get_weather",
                        "arguments": {"city": "Paris"},
                        "signature": "F1",
                    },
                    {"type": "text", "text": "", "signature": "E1"},
                ],
            },
        ]
    )["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [
            {"text": "need the tool", "thought": True, "thoughtSignature": "T1"},
            {"text": "Let me check.", "thoughtSignature": "X1"},
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "F1"},
            {"text": "", "thoughtSignature": "E1"},
        ],
    }


def test_provider_ids_are_sent_and_made_up_ids_are_not() -> None:
    contents = body(
        [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_call", "id": "fc-9", "name": "a", "arguments": {}},
                    {"type": "tool_call", "id": "call_1", "name": "b", "arguments": {}},
                ],
            },
            {"role": "tool_result", "tool_call_id": "fc-9", "content": "1"},
            {"role": "tool_result", "tool_call_id": "call_1", "content": "2"},
        ]
    )["contents"]
    assert contents[1]["parts"] == [
        {"functionCall": {"name": "a", "args": {}, "id": "fc-9"}},
        {"functionCall": {"name": "b", "args": {}}},
    ]
    assert contents[2] == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "a", "response": {"output": "1"}, "id": "fc-9"}},
            {"functionResponse": {"name": "b", "response": {"output": "2"}}},
        ],
    }


def test_tool_results_name_lookup_error_flag_and_one_user_turn() -> None:
    contents = body(
        [
            {"role": "user", "content": "Weather in Paris and Tokyo?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_call",
                        "id": "call_0",
                        "name": "get_weather",
                        "arguments": {"city": "Paris"},
                    },
                    {
                        "type": "tool_call",
                        "id": "call_1",
                        "name": "get_weather",
                        "arguments": {"city": "Tokyo"},
                    },
                ],
            },
            {"role": "tool_result", "tool_call_id": "call_0", "content": "18C"},
            {
                "role": "tool_result",
                "tool_call_id": "call_1",
                "tool_name": "get_weather",
                "content": "station offline",
                "is_error": True,
            },
        ]
    )["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[2]["parts"] == [
        {"functionResponse": {"name": "get_weather", "response": {"output": "18C"}}},
        {"functionResponse": {"name": "get_weather", "response": {"error": "station offline"}}},
    ]


def test_tool_result_without_a_known_name_names_the_field() -> None:
    with pytest.raises(InputError, match=r"messages\[1\]\.tool_name"):
        body(
            [
                {"role": "user", "content": "x"},
                {"role": "tool_result", "tool_call_id": "nope", "content": "1"},
            ]
        )


def test_same_role_turns_are_merged() -> None:
    contents = body(
        [
            {"role": "user", "content": "one"},
            {"role": "user", "content": "two"},
            {"role": "assistant", "content": "a"},
            {"role": "assistant", "content": "b"},
        ]
    )["contents"]
    assert contents == [
        {"role": "user", "parts": [{"text": "one"}, {"text": "two"}]},
        {"role": "model", "parts": [{"text": "a"}, {"text": "b"}]},
    ]


def test_filler_user_turn_between_a_call_turn_and_another_model_turn() -> None:
    contents = body(
        [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [{"type": "tool_call", "id": "call_0", "name": "f", "arguments": {}}],
            },
            {"role": "assistant", "content": "after"},
        ]
    )["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user", "model"]
    assert contents[2] == {"role": "user", "parts": [{"text": ""}]}


def test_tools_and_options() -> None:
    request = body(
        [{"role": "user", "content": "hi"}],
        tools=[
            {
                "name": "get_weather",
                "description": "Weather by city",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
            {"name": "now", "description": "", "parameters": {"type": "object", "properties": {}}},
        ],
        options={
            "max_tokens": 256,
            "temperature": 0.2,
            "top_p": 0.9,
            "stop": ["END"],
            "thinking_budget": 1024,
            "tool_choice": "required",
        },
    )
    assert request["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Weather by city",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                },
                {"name": "now"},
            ]
        }
    ]
    assert request["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert request["generationConfig"] == {
        "maxOutputTokens": 256,
        "temperature": 0.2,
        "topP": 0.9,
        "stopSequences": ["END"],
        "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": True},
    }


@pytest.mark.parametrize(
    ("choice", "config"),
    [
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        ({"type": "function", "function": {"name": "f"}}, {"mode": "ANY", "allowedFunctionNames": ["f"]}),
        ({"name": "f"}, {"mode": "ANY", "allowedFunctionNames": ["f"]}),
    ],
)
def test_tool_choice(choice: Any, config: dict[str, Any]) -> None:
    request = body([{"role": "user", "content": "hi"}], options={"tool_choice": choice})
    assert request["toolConfig"] == {"functionCallingConfig": config}


def test_unknown_tool_choice_names_the_field() -> None:
    with pytest.raises(InputError, match=r"options\.tool_choice"):
        body([{"role": "user", "content": "hi"}], options={"tool_choice": "sometimes"})


def test_decoded_answer_goes_back_with_signatures_on_the_same_parts() -> None:
    wire_parts = [
        {"text": "thinking..", "thought": True, "thoughtSignature": "S0"},
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "S1"},
        {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
    ]
    answer = decode(
        orjson.loads(
            orjson.dumps({"candidates": [{"content": {"role": "model", "parts": wire_parts}, "finishReason": "STOP"}]})
        ),
        PROFILE,
    )
    request = encode(
        Conversation(
            messages=[
                *conv([{"role": "user", "content": "Weather?"}]).messages,
                answer,
                *conv(
                    [
                        {"role": "tool_result", "tool_call_id": "call_0", "content": "18C"},
                        {"role": "tool_result", "tool_call_id": "call_1", "content": "21C"},
                    ]
                ).messages,
            ]
        ),
        PROFILE,
    )
    contents = request.body["contents"]
    assert contents[1] == {"role": "model", "parts": wire_parts}
    assert [p["functionResponse"]["name"] for p in contents[2]["parts"]] == ["get_weather", "get_weather"]


def test_tool_call_without_a_name_names_the_field() -> None:
    with pytest.raises(InputError, match=r"messages\[1\]\.content\[0\]\.name"):
        body(
            [
                {"role": "user", "content": "go"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_call", "id": "c", "name": "", "arguments": {}}],
                },
            ]
        )


def _calls(signature: str | None) -> list[dict[str, Any]]:
    first: dict[str, Any] = {"type": "tool_call", "id": "c1", "name": "f", "arguments": {}}
    if signature is not None:
        first["signature"] = signature
    return [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [first, {"type": "tool_call", "id": "c2", "name": "f", "arguments": {}}]},
        {"role": "tool_result", "tool_call_id": "c1", "tool_name": "f", "content": "1"},
        {"role": "tool_result", "tool_call_id": "c2", "tool_name": "f", "content": "2"},
    ]


def _signatures(request: dict[str, Any]) -> list[str | None]:
    model_turn = request["contents"][1]
    return [p.get("thoughtSignature") for p in model_turn["parts"]]


def test_gemini_3_gets_the_documented_placeholder_on_an_unsigned_first_call_only() -> None:
    assert _signatures(body(_calls(None), model="gemini-3-pro-preview")) == ["skip_thought_signature_validator", None]
    assert _signatures(body(_calls("c2lnbg=="), model="gemini-3-pro-preview")) == ["c2lnbg==", None]
    assert _signatures(body(_calls(None), model="gemini-2.5-flash")) == [None, None]
