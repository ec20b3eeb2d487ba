"""scripts/author_cassettes.py: a context scenario's own requests carried over to another column."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def author() -> ModuleType:
    spec = importlib.util.spec_from_file_location("author_cassettes", ROOT / "scripts" / "author_cassettes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("author_cassettes", module)
    spec.loader.exec_module(module)
    return module


SUMMARY_REQUEST = {
    "model": "gpt-4.1-mini",
    "messages": [
        {"role": "system", "content": "Summarise."},
        {"role": "user", "content": "Read the log of job 41."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "callJ41aa", "type": "function", "function": {"name": "read_log", "arguments": '{"job":41}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "callJ41aa", "content": "job 41: ok"},
    ],
    "tools": [{"type": "function", "function": {"name": "read_log", "description": "Read a log.", "parameters": {}}}],
    "max_completion_tokens": 64,
}


def test_chat_request_reencoded_for_another_chat_host(author: ModuleType) -> None:
    body = orjson.loads(author.translate_request(orjson.dumps(SUMMARY_REQUEST), "openai", "together", None))
    # Together AI: its own model and max_tokens; the messages are the same Chat Completions messages
    assert body["model"] == "meta-llama/Llama-3.3-70B-Instruct-Turbo"
    assert body["max_tokens"] == 64 and "max_completion_tokens" not in body
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool"]
    assert body["messages"][2]["tool_calls"][0]["id"] == "callJ41aa"
    assert body["messages"][3]["tool_call_id"] == "callJ41aa"


def test_chat_request_reencoded_for_the_responses_api(author: ModuleType) -> None:
    body = orjson.loads(author.translate_request(orjson.dumps(SUMMARY_REQUEST), "openai", "openai_responses", None))
    # the Responses API: input items, a function_call and its function_call_output, max_output_tokens
    assert body["max_output_tokens"] == 64
    kinds = [item.get("type", item.get("role")) for item in body["input"]]
    assert "function_call" in kinds and "function_call_output" in kinds
    call = next(i for i in body["input"] if i.get("type") == "function_call")
    assert (call["call_id"], call["name"], orjson.loads(call["arguments"])) == ("callJ41aa", "read_log", {"job": 41})


def test_gemini_bytes_kept_and_unknown_sources_left_alone(author: ModuleType) -> None:
    raw = b'{"contents":[{"role":"user","parts":[{"text":"x"}]}]}'
    assert author.translate_request(raw, "gemini", "vertex", None) == raw
    assert author.translate_request(raw, "anthropic", "openai", None) is None
    assert author.translate_request(None, "openai", "azure", None) is None


def test_perplexity_framing_of_a_stream(author: ModuleType) -> None:
    framing = author.perplexity_framing
    usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    source = b"".join(
        b"data: " + orjson.dumps(c) + b"\n\n"
        for c in (
            {"id": "chatcmpl-1", "model": "sonar-pro", "choices": [{"index": 0, "delta": {"content": "Hel"}}]},
            {"id": "chatcmpl-1", "model": "sonar-pro", "choices": [{"index": 0, "delta": {"content": "lo"}}]},
            {"id": "chatcmpl-1", "model": "sonar-pro", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {"id": "chatcmpl-1", "model": "sonar-pro", "choices": [], "usage": usage},
        )
    )
    out = framing.stream(source + b"data: [DONE]\n\n")
    frames = [orjson.loads(f[6:]) for f in out.split(b"\n\n") if f]
    # no usage-only chunk and no [DONE]: the finish chunk is the last one, chat.completion.done
    assert [f["object"] for f in frames] == ["chat.completion.chunk", "chat.completion.chunk", "chat.completion.done"]
    assert [f["choices"][0]["message"]["content"] for f in frames] == ["Hel", "Hello", "Hello"]
    assert [f["usage"]["completion_tokens"] for f in frames] == [1, 2, 3]
    assert "request_cost" in frames[-1]["usage"]["cost"] and "request_cost" not in frames[0]["usage"]["cost"]
    assert len({f["id"] for f in frames}) == 1 and not frames[0]["id"].startswith("chatcmpl")


def test_perplexity_error_envelope(author: ModuleType) -> None:
    framing = author.perplexity_framing
    body = orjson.dumps(
        {"error": {"message": "long", "type": "invalid_request_error", "code": "context_length_exceeded"}}
    )
    envelope = orjson.loads(framing.error(400, body))["error"]
    assert envelope == {
        "message": "The total length of all messages is too long.",
        "type": "too_many_prompt_tokens",
        "code": 400,
    }
