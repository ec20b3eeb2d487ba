"""Ollama non-streaming `/api/chat` decode (§5.3), from hand-written bodies."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from conformance.codecs.ollama import decode
from conformance.exceptions import WireFormatError
from conformance.model import dump
from tests.codecs.ollama.helpers import PROFILE, outcome

TOOL_ANSWER = b"""{"model":"llama3.2","created_at":"2025-07-07T20:22:19.19Z",
 "message":{"role":"assistant","content":"","thinking":"Need the weather tool.",
   "tool_calls":[{"id":"call_k3j9x0ab","function":{"index":0,"name":"get_weather","arguments":{"city":"Tokyo"}}}]},
 "done":true,"done_reason":"stop","total_duration":182242375,"load_duration":41295167,
 "prompt_eval_count":169,"prompt_eval_duration":24573166,"eval_count":15,"eval_duration":115959084}"""


def decoded(body: bytes) -> dict[str, Any]:
    return dump(decode(orjson.loads(body), PROFILE))


def test_tool_call_turn_with_thinking() -> None:
    assert decoded(TOOL_ANSWER) == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Need the weather tool."},
            {
                "type": "tool_call",
                "id": "call_k3j9x0ab",
                "name": "get_weather",
                "arguments": {"city": "Tokyo"},
            },
        ],
        # Ollama ends tool-call turns with "stop": the calls make it tool_use.
        "stop_reason": "tool_use",
        "raw_stop_reason": "stop",
        "usage": {
            "input_tokens": 169,
            "output_tokens": 15,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
        },
        "provider": "ollama",
        "model": "llama3.2",
    }


def test_id_less_calls_get_ordinal_ids() -> None:
    body = b"""{"model":"qwen3","message":{"role":"assistant","content":"",
      "tool_calls":[{"function":{"index":0,"name":"a","arguments":{}}},
                    {"function":{"index":1,"name":"b","arguments":{"x":1}}}]},
      "done":true,"done_reason":"stop"}"""
    content = decoded(body)["content"]
    assert [(c["id"], c["name"]) for c in content] == [("call_0", "a"), ("call_1", "b")]


@pytest.mark.parametrize(
    ("reason", "expected"),
    [("stop", "stop"), ("length", "length"), ("load", "stop"), ("unload", "stop")],
)
def test_done_reasons(reason: str, expected: str) -> None:
    body = b'{"model":"m","message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"%s"}' % (
        reason.encode()
    )
    message = decoded(body)
    assert (message["stop_reason"], message["raw_stop_reason"]) == (expected, reason)


def test_plain_text_answer() -> None:
    body = b"""{"model":"llama3.2","message":{"role":"assistant","content":"Hello!"},"done":true,
      "done_reason":"stop","prompt_eval_count":5,"eval_count":2}"""
    message = decoded(body)
    assert message["content"] == [{"type": "text", "text": "Hello!"}]
    assert message["stop_reason"] == "stop"


def test_error_body_with_status_200_is_a_typed_error() -> None:
    result = outcome(200, b'{"error":"an error was encountered while running the model"}', stream=False)
    assert result.error is not None
    assert result.error.kind == "server"


def test_non_object_body_is_corrupt_input() -> None:
    with pytest.raises(WireFormatError, match="response body"):
        decode([1, 2], PROFILE)
