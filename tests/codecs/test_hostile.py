"""Hostile responses, one test per kind: JSON nested past what the serializer can write back,
and a list or an object where the wire format has a string or an integer. Each gives a normalized
outcome or a typed error, for every dialect."""

from __future__ import annotations

import json

import orjson
import pytest

from conformance.capabilities import get_profile, provider_names
from conformance.exceptions import ConformanceError
from conformance.jsonvalue import MAX_DEPTH, loads
from conformance.model import AssistantMessage
from conformance.runtime.reference import ReferenceRuntime

RUNTIME = ReferenceRuntime()
DIALECT_PROVIDER = {get_profile(p).dialect: p for p in reversed(provider_names())}
JSON = {"content-type": "application/json"}
SSE = {"content-type": "text/event-stream"}


def _decode(provider: str, status: int, headers: dict[str, str], body: bytes, stream: bool) -> dict[str, object]:
    try:
        outcome = RUNTIME.decode(provider, status, headers, [body], stream)
    except ConformanceError as exc:
        return {"typed": str(exc), "one line": "\n" not in str(exc)}
    json.dumps(outcome)
    return outcome


@pytest.mark.parametrize("provider", sorted(DIALECT_PROVIDER.values()))
@pytest.mark.parametrize("depth", [255, 300, 1024])
def test_json_nested_past_the_serializer_limit(provider: str, depth: int) -> None:
    deep = b"[" * depth + b"]" * depth
    error = _decode(provider, 429, JSON, deep, False)
    assert error["error"]["kind"] == "rate_limited"  # type: ignore[index]
    assert _decode(provider, 200, JSON, deep, False)["one line"] is True
    assert _decode(provider, 200, JSON, b'{"error":' + deep + b"}", False)["one line"] is True


def test_the_parser_refuses_what_the_serializer_cannot_write() -> None:
    ok = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert orjson.dumps(loads(ok)) == ok
    with pytest.raises(orjson.JSONDecodeError, match="nested deeper"):
        loads(b"[" + ok + b"]")


def test_deep_tool_arguments_are_refused_by_the_model() -> None:
    args: dict[str, object] = {}
    inner = args
    for _ in range(MAX_DEPTH + 5):
        inner["a"] = {}
        inner = inner["a"]  # type: ignore[assignment]
    with pytest.raises(ValueError, match="nested deeper"):
        AssistantMessage.model_validate(
            {"role": "assistant", "content": [{"type": "tool_call", "id": "c", "name": "f", "arguments": args}]}
        )


WRONG_TYPES = [[], {}, [1], {"a": 1}]


@pytest.mark.parametrize("wrong", WRONG_TYPES, ids=repr)
def test_anthropic_delta_type_of_another_type(wrong: object) -> None:
    frames = [
        {"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": wrong, "text": "x"}},
        {"type": "content_block_delta", "index": wrong, "delta": {"type": "text_delta", "text": "y"}},
        {"type": "message_stop"},
    ]
    body = b"".join(b"event: x\ndata: " + json.dumps(f).encode() + b"\n\n" for f in frames)
    _decode("anthropic", 200, SSE, body, True)


@pytest.mark.parametrize("wrong", WRONG_TYPES, ids=repr)
def test_openai_tool_call_index_of_another_type(wrong: object) -> None:
    def chunk(delta: dict[str, object]) -> bytes:
        data = {"id": "c", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        return b"data: " + json.dumps(data).encode() + b"\n\n"

    body = (
        chunk({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}]})
        + chunk({"tool_calls": [{"index": wrong, "function": {"arguments": "{}"}}]})
        + chunk({"tool_calls": [{"index": 0, "function": {"arguments": wrong}}]})
        + b"data: [DONE]\n\n"
    )
    _decode("openai", 200, SSE, body, True)


@pytest.mark.parametrize("wrong", WRONG_TYPES, ids=repr)
@pytest.mark.parametrize("field", ["index", "id"])
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_reasoning_details_index_or_id_of_another_type(wrong: object, field: str, stream: bool) -> None:
    detail = {"type": "reasoning.text", "text": "thought", field: wrong}
    if stream:
        choice = {"index": 0, "delta": {"reasoning_details": [detail]}, "finish_reason": "stop"}
        body = b"data: " + json.dumps({"id": "c", "model": "m", "choices": [choice]}).encode() + b"\n\ndata: [DONE]\n\n"
    else:
        message = {"role": "assistant", "content": "a", "reasoning_details": [detail]}
        body = json.dumps({"id": "c", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}).encode()
    outcome = _decode("openrouter", 200, SSE if stream else JSON, body, stream)
    assert outcome["message"]["content"][0] == {"type": "thinking", "thinking": "thought"}  # type: ignore[index]
