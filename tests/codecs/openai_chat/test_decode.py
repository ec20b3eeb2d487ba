"""Non-streaming `chat.completion` bodies (wire reference 1.3 and 6), decoded through the same
builder as streams."""

from __future__ import annotations

from typing import Any

from conformance.model import (
    AssistantMessage,
    RedactedThinkingBlock,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)
from tests.codecs.openai_chat.helpers import decode_json


def completion(message: dict[str, Any], finish: str | None = "stop", **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m-2025",
        "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}}],
        **extra,
    }


def decoded(body: Any, provider: str = "openai") -> AssistantMessage:
    out = decode_json(body, provider)
    assert out.error is None, out.error
    assert out.message is not None
    return out.message


def test_text_usage_model_and_provider() -> None:
    usage = {
        "prompt_tokens": 2148,
        "completion_tokens": 245,
        "prompt_tokens_details": {"cached_tokens": 1920},
        "completion_tokens_details": {"reasoning_tokens": 192},
    }
    msg = decoded(completion({"content": "Section 4.2.", "refusal": None}, usage=usage))
    assert msg.content == [TextBlock(text="Section 4.2.")]
    assert (msg.stop_reason, msg.raw_stop_reason, msg.provider, msg.model) == ("stop", "stop", "openai", "m-2025")
    assert msg.usage == Usage(input_tokens=2148, output_tokens=245, cache_read_tokens=1920, reasoning_tokens=192)


def test_tool_calls_with_content_null() -> None:
    body = completion(
        {
            "content": None,
            "tool_calls": [
                {"id": "call_x", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
                {"id": "call_y", "type": "function", "function": {"name": "g", "arguments": ""}},
                {"id": "call_z", "type": "function", "function": {"name": "h", "arguments": "{oops"}},
            ],
        },
        "tool_calls",
    )
    assert decoded(body).content == [
        ToolCallBlock(id="call_x", name="f", arguments={"a": 1}),
        ToolCallBlock(id="call_y", name="g"),
        ToolCallBlock(id="call_z", name="h", raw_arguments="{oops"),
    ]
    assert decoded(body).stop_reason == "tool_use"


def test_every_entry_of_a_whole_message_is_its_own_call() -> None:
    """Compatibility servers may repeat an id or send none: entries are never merged."""
    body = completion(
        {
            "tool_calls": [
                {"id": "", "function": {"name": "f", "arguments": '{"n": 1}'}},
                {"id": "", "function": {"name": "f", "arguments": '{"n": 2}'}},
                {"id": "dup", "function": {"name": "g", "arguments": "{}"}},
                {"id": "dup", "function": {"name": "g", "arguments": '{"again": true}'}},
            ]
        },
        "tool_calls",
    )
    assert decoded(body, "openai-compatible").content == [
        ToolCallBlock(id="call_0", name="f", arguments={"n": 1}),
        ToolCallBlock(id="call_1", name="f", arguments={"n": 2}),
        ToolCallBlock(id="dup", name="g"),
        ToolCallBlock(id="dup", name="g", arguments={"again": True}),
    ]


def test_mistral_calls_without_type_and_typed_content() -> None:
    body = completion(
        {
            "content": [
                {"type": "thinking", "thinking": [{"type": "text", "text": "Check."}]},
                {"type": "text", "text": "Calling."},
            ],
            "tool_calls": [{"id": "gSIMJiOkT", "function": {"name": "f", "arguments": '{"q": "x"}'}}],
        },
        "tool_calls",
    )
    assert decoded(body, "mistral").content == [
        ThinkingBlock(thinking="Check."),
        TextBlock(text="Calling."),
        ToolCallBlock(id="gSIMJiOkT", name="f", arguments={"q": "x"}),
    ]


def test_refusal() -> None:
    msg = decoded(completion({"content": None, "refusal": "I can't help with that."}))
    assert msg.content == [TextBlock(text="I can't help with that.")]
    assert (msg.stop_reason, msg.raw_stop_reason) == ("refusal", "stop")


def test_reasoning_fields_and_deepseek_cache_hits() -> None:
    body = completion(
        {"reasoning_content": "R", "content": "A"},
        usage={"prompt_tokens": 100, "completion_tokens": 9, "prompt_cache_hit_tokens": 64},
    )
    msg = decoded(body, "deepseek")
    assert msg.content == [ThinkingBlock(thinking="R"), TextBlock(text="A")]
    assert msg.usage is not None and msg.usage.cache_read_tokens == 64


def test_openrouter_reasoning_details_win_over_the_same_text_in_reasoning() -> None:
    body = completion(
        {
            "content": "Done",
            "reasoning": "Plan it.",
            "reasoning_details": [
                {"type": "reasoning.text", "text": "Plan it.", "signature": "EqQB==", "format": "anthropic-claude-v1"},
                {"type": "reasoning.encrypted", "data": "EmwK", "index": 1},
            ],
        },
        usage={"prompt_tokens": 10, "completion_tokens": 4, "prompt_tokens_details": {"cache_write_tokens": 7}},
    )
    msg = decoded(body, "openrouter")
    assert msg.content == [
        ThinkingBlock(thinking="Plan it.", signature="EqQB=="),
        RedactedThinkingBlock(data="EmwK"),
        TextBlock(text="Done"),
    ]
    assert msg.usage is not None and msg.usage.cache_write_tokens == 7


def test_think_tags_in_content() -> None:
    msg = decoded(completion({"content": "<think>\nHmm.\n</think>\n\nFour."}), "fireworks")
    assert msg.content == [ThinkingBlock(thinking="\nHmm.\n"), TextBlock(text="\n\nFour.")]


def test_groq_usage_in_x_groq() -> None:
    msg = decoded(completion({"content": "x"}, x_groq={"usage": {"prompt_tokens": 3, "completion_tokens": 1}}), "groq")
    assert msg.usage == Usage(input_tokens=3, output_tokens=1)


def test_xai_output_tokens_include_reasoning() -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "completion_tokens_details": {"reasoning_tokens": 20}}
    msg = decoded(completion({"content": "x", "reasoning_content": "r"}, usage=usage), "xai")
    assert msg.usage is not None and (msg.usage.output_tokens, msg.usage.reasoning_tokens) == (25, 20)


def test_a_finish_reason_outside_the_table() -> None:
    msg = decoded(completion({"content": "x"}, ""), "openai-compatible")
    assert (msg.stop_reason, msg.raw_stop_reason) == ("stop", "")
    calls = {"tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{}"}}]}
    assert decoded(completion(calls, "STOP_TOOL"), "openai-compatible").stop_reason == "tool_use"


def test_openrouter_provider_failure_inside_a_200_body() -> None:
    body = completion({"content": ""}, "error")
    body["choices"][0]["error"] = {"code": 502, "message": "Upstream error", "metadata": {"error_type": "server"}}
    out = decode_json(body, "openrouter")
    assert out.error is not None and (out.error.kind, out.error.status) == ("server", 502)
    assert out.partial is not None and out.partial.stop_reason == "error"


def test_xai_error_inside_a_200_body() -> None:
    out = decode_json(
        {
            "code": "Client specified an invalid argument",
            "error": "Incorrect API key provided: xai-ABCDEFGHIJKLMNOPQRST",
        },
        "xai",
    )
    assert out.error is not None and out.error.kind == "auth"
    assert out.error.provider_code == "Client specified an invalid argument"
    assert "xai-ABCD" not in out.error.message and "<redacted>" in out.error.message


def test_bodies_without_a_usable_choice_are_not_a_crash() -> None:
    empty = decode_json({"id": "x", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0}})
    assert empty.message is not None and empty.message.content == []
    assert decode_json([1, 2]).error is not None


PPLX_COMPLETION: dict[str, Any] = {
    "id": "7d1e7669-9516-4843-ad57-02bced25549f",
    "model": "sonar-pro",
    "created": 1795400000,
    "usage": {
        "prompt_tokens": 8,
        "completion_tokens": 15,
        "total_tokens": 23,
        "search_context_size": "low",
        "cost": {
            "input_tokens_cost": 0.00002,
            "output_tokens_cost": 0.00023,
            "request_cost": 0.006,
            "total_cost": 0.00625,
        },
    },
    "citations": ["https://example.org/paris", "https://example.org/france"],
    "search_results": [
        {"title": "Paris", "url": "https://example.org/paris", "date": None, "source": "web"},
        {"title": "", "url": "https://example.org/france", "source": "web"},
        {"title": "no url"},
    ],
    "object": "chat.completion",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "The capital of France is Paris.[1][2]"},
            "delta": {"role": "assistant", "content": ""},
            "finish_reason": "stop",
        }
    ],
}


def test_perplexity_search_results_are_the_sources() -> None:
    msg = decoded(PPLX_COMPLETION, "perplexity")
    assert msg.content == [TextBlock(text="The capital of France is Paris.[1][2]")]
    assert msg.sources == [
        Source(url="https://example.org/paris", title="Paris"),
        Source(url="https://example.org/france"),
    ]
    assert msg.usage == Usage(input_tokens=8, output_tokens=15)


def test_perplexity_citations_alone_are_urls() -> None:
    body = {k: v for k, v in PPLX_COMPLETION.items() if k != "search_results"}
    msg = decoded(body, "perplexity")
    assert msg.sources == [Source(url="https://example.org/paris"), Source(url="https://example.org/france")]


def test_sources_only_where_the_profile_reads_them() -> None:
    assert decoded(PPLX_COMPLETION, "openai").sources is None
