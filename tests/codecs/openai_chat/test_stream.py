"""Streamed Chat Completions: tool calls by id, usage, reasoning, endings, errors."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.model import TextBlock, ThinkingBlock, ToolCallBlock
from tests.codecs.openai_chat.helpers import chunk, decode_stream, every_split, sse

USAGE = {
    "prompt_tokens": 40,
    "completion_tokens": 12,
    "total_tokens": 52,
    "prompt_tokens_details": {"cached_tokens": 32},
}


def test_text_with_a_multibyte_character_split_and_usage_after_finish() -> None:
    body = sse(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "café ☕"}),
        chunk({}, "stop"),
        chunk(None, usage=USAGE),
    )
    out = every_split(body)
    assert out.message is not None
    assert out.message.content == [TextBlock(text="café ☕")]
    assert (out.message.stop_reason, out.message.raw_stop_reason) == ("stop", "stop")
    assert out.message.usage is not None
    assert (out.message.usage.input_tokens, out.message.usage.cache_read_tokens) == (40, 32)


def test_a_later_null_usage_never_erases_it() -> None:
    body = sse(chunk({"content": "hi"}, "stop", usage=USAGE), chunk({}, None, usage=None))
    out = decode_stream(body)
    assert out.message is not None and out.message.usage is not None
    assert out.message.usage.output_tokens == 12


def test_parallel_calls_interleaved_by_index() -> None:
    body = sse(
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_a", "type": "function", "function": {"name": "f", "arguments": ""}}
                ]
            }
        ),
        chunk(
            {
                "tool_calls": [
                    {"index": 1, "id": "call_b", "type": "function", "function": {"name": "g", "arguments": ""}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"x":'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"y": 2}'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": " 1}"}}]}),
        chunk({}, "tool_calls"),
    )
    out = every_split(body)
    assert out.message is not None
    assert out.message.content == [
        ToolCallBlock(id="call_a", name="f", arguments={"x": 1}),
        ToolCallBlock(id="call_b", name="g", arguments={"y": 2}),
    ]
    assert out.message.stop_reason == "tool_use"


def test_repeated_id_and_name_on_every_delta_are_not_doubled() -> None:
    def delta(args: str) -> dict[str, object]:
        return {
            "role": "assistant",
            "tool_calls": [
                {"index": 0, "id": "call_a", "type": "function", "function": {"name": "f", "arguments": args}}
            ],
        }

    out = decode_stream(sse(chunk(delta('{"a"')), chunk(delta(": 1}")), chunk({}, "tool_calls")))
    assert out.message is not None
    assert out.message.content == [ToolCallBlock(id="call_a", name="f", arguments={"a": 1})]


def test_all_calls_on_index_zero_are_told_apart_by_id() -> None:
    body = sse(
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "function": {"name": "f", "arguments": '{"n": 1}'}}]}),
        chunk({"tool_calls": [{"index": 0, "id": "call_b", "function": {"name": "f", "arguments": '{"n": '}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "2}"}}]}),
        chunk({}, "tool_calls"),
    )
    out = decode_stream(body)
    assert out.message is not None
    assert [(b.id, b.arguments) for b in out.message.content if isinstance(b, ToolCallBlock)] == [
        ("call_a", {"n": 1}),
        ("call_b", {"n": 2}),
    ]


def test_calls_without_index_arrive_whole() -> None:
    body = sse(
        chunk({"tool_calls": [{"id": "gSIMJiOkT", "function": {"name": "f", "arguments": '{"q": "x"}'}}]}, "tool_calls")
    )
    out = decode_stream(body, "mistral")
    assert out.message is not None
    assert out.message.content == [ToolCallBlock(id="gSIMJiOkT", name="f", arguments={"q": "x"})]


def test_empty_and_invalid_arguments() -> None:
    body = sse(
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "function": {"name": "now", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "call_b", "function": {"name": "f", "arguments": '{"city": "Par'}}]}),
        chunk({}, "tool_calls"),
    )
    out = decode_stream(body)
    assert out.message is not None
    assert out.message.content == [
        ToolCallBlock(id="call_a", name="now", arguments={}),
        ToolCallBlock(id="call_b", name="f", arguments={}, raw_arguments='{"city": "Par'),
    ]


def test_no_finish_reason_is_an_interrupted_stream_with_the_partial_kept() -> None:
    out = decode_stream(sse(chunk({"content": "The first"}), done=False))
    assert out.error is not None and out.error.kind == "stream_interrupted"
    assert out.partial is not None and out.partial.content == [TextBlock(text="The first")]
    assert out.partial.stop_reason is None


def test_done_is_optional() -> None:
    out = decode_stream(sse(chunk({"content": "ok"}, "stop"), done=False))
    assert out.message is not None and out.message.stop_reason == "stop"


def test_refusal() -> None:
    out = decode_stream(sse(chunk({"refusal": "I can't "}), chunk({"refusal": "help."}), chunk({}, "stop")))
    assert out.message is not None
    assert out.message.content == [TextBlock(text="I can't help.")]
    assert (out.message.stop_reason, out.message.raw_stop_reason) == ("refusal", "stop")


def test_error_object_mid_stream() -> None:
    body = sse(chunk({"content": "partial"}), {"error": {"message": "boom", "type": "server_error", "code": None}})
    out = decode_stream(body)
    assert out.error is not None and out.error.kind == "server" and out.error.message == "boom"
    assert out.partial is not None and out.partial.content == [TextBlock(text="partial")]
    assert out.partial.stop_reason == "error"


def test_openrouter_error_chunk_with_finish_reason_error() -> None:
    error = {"code": 502, "message": "Provider disconnected", "metadata": {"error_type": "provider_unavailable"}}
    body = sse(chunk({"content": "Hel"}), {**chunk({"content": ""}, "error"), "error": error}, done=False)
    out = decode_stream(b": OPENROUTER PROCESSING\n\n" + body, "openrouter")
    assert out.error is not None
    assert (out.error.kind, out.error.provider_code, out.error.status) == ("server", "provider_unavailable", 502)
    assert out.partial is not None and out.partial.content == [TextBlock(text="Hel")]


def test_groq_error_event() -> None:
    payload = {
        "error": {
            "message": "Failed to call a function.",
            "type": "invalid_request_error",
            "code": "tool_use_failed",
            "status_code": 400,
        }
    }
    out = decode_stream(sse(chunk({"content": "x"}), done=False) + sse(payload, event="error", done=False), "groq")
    assert out.error is not None
    assert (out.error.kind, out.error.provider_code, out.error.status) == ("invalid_request", "tool_use_failed", 400)


def test_a_frame_that_is_not_json_is_a_typed_error() -> None:
    out = decode_stream(sse(chunk({"content": "a"}), b"{not json", chunk({}, "stop")))
    assert out.error is not None and out.error.kind == "server"
    assert "SSE event 2" in out.error.message
    assert out.partial is not None and out.partial.content == [TextBlock(text="a")]


def test_reasoning_content_before_content() -> None:
    body = sse(
        chunk({"role": "assistant", "reasoning_content": ""}),
        chunk({"reasoning_content": "Think "}),
        chunk({"reasoning_content": "more."}),
        chunk({"content": "Answer."}, "stop"),
    )
    out = every_split(body, "deepseek")
    assert out.message is not None
    assert out.message.content == [ThinkingBlock(thinking="Think more."), TextBlock(text="Answer.")]


def test_openrouter_reasoning_details_preferred_over_reasoning() -> None:
    body = sse(
        chunk({"reasoning": "Plan", "reasoning_details": [{"type": "reasoning.text", "text": "Plan", "index": 0}]}),
        chunk({"reasoning_details": [{"type": "reasoning.text", "text": "", "signature": "sig==", "index": 0}]}),
        chunk({"reasoning_details": [{"type": "reasoning.encrypted", "data": "opaque", "index": 1}]}),
        chunk({"content": "Done"}, "stop"),
    )
    out = decode_stream(body, "openrouter")
    assert out.message is not None
    assert [b.model_dump(exclude_none=True) for b in out.message.content] == [
        {"type": "thinking", "thinking": "Plan", "signature": "sig=="},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "Done"},
    ]


def test_xai_usage_excludes_reasoning() -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "completion_tokens_details": {"reasoning_tokens": 20}}
    out = decode_stream(sse(chunk({"content": "x"}, "stop", usage=usage)), "xai")
    assert out.message is not None and out.message.usage is not None
    assert (out.message.usage.output_tokens, out.message.usage.reasoning_tokens) == (25, 20)


THINK = sse(
    chunk({"content": "<thi"}),
    chunk({"content": "nk>Let me"}),
    chunk({"content": " see.</th"}),
    chunk({"content": "ink>The answer is 4. a<b"}),
    chunk({}, "stop"),
)


def test_think_tags_split_across_chunks() -> None:
    out = every_split(THINK, "fireworks")
    assert out.message is not None
    assert out.message.content == [ThinkingBlock(thinking="Let me see."), TextBlock(text="The answer is 4. a<b")]


def test_think_tags_are_plain_text_without_the_flag() -> None:
    out = decode_stream(THINK, "openai")
    assert out.message is not None
    assert out.message.content == [TextBlock(text="<think>Let me see.</think>The answer is 4. a<b")]


def test_think_tag_state_is_fresh_for_every_stream() -> None:
    unfinished = sse(chunk({"content": "<think>never closed"}), chunk({}, "stop"))
    first = decode_stream(unfinished, "groq")
    assert first.message is not None and first.message.content == [ThinkingBlock(thinking="never closed")]
    second = decode_stream(sse(chunk({"content": "plain"}), chunk({}, "stop")), "groq")
    assert second.message is not None and second.message.content == [TextBlock(text="plain")]


def test_mistral_typed_content_chunks() -> None:
    body = sse(
        chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "Hmm."}]}]}),
        chunk({"content": [{"type": "text", "text": "Yes."}]}, "stop"),
    )
    out = decode_stream(body, "mistral")
    assert out.message is not None
    assert out.message.content == [ThinkingBlock(thinking="Hmm."), TextBlock(text="Yes.")]


BODIES = [
    THINK,
    sse(
        chunk({"content": "日本"}),
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "function": {"name": "f", "arguments": '{"k": "é"}'}}]}),
        chunk({}, "tool_calls", usage=USAGE),
    ),
]


@given(st.sampled_from(BODIES), st.lists(st.integers(min_value=0, max_value=400), max_size=10))
def test_any_split_gives_the_same_outcome(body: bytes, cuts: list[int]) -> None:
    points = sorted({c for c in cuts if c < len(body)})
    chunks = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]
    assert decode_stream(body, "groq", chunks) == decode_stream(body, "groq")


def test_a_stream_cut_inside_its_last_frame_is_interrupted_not_corrupt() -> None:
    body = sse(chunk({"content": "Hello"}), chunk({"content": " world"}), done=False)
    cut = body[: body.rindex(b"world") + 2]
    out = decode_stream(cut)
    assert out.error is not None and out.error.kind == "stream_interrupted"
    assert out.partial is not None and out.partial.content == [TextBlock(text="Hello")]
