"""Streamed Chat Completions: framing, usage, tool calls by id, reasoning, endings, errors.

Expected values follow the wire reference (sections 1.4, 6, 7, 8, 9); every body comes from
`streams.STREAMS`, which `test_rechunk.py` also decodes under arbitrary re-chunking.
"""

from __future__ import annotations

from conformance.capabilities import get_profile
from conformance.codecs.openai_chat import OpenAIChatStream
from conformance.model import (
    AssistantMessage,
    DoneEvent,
    ErrorEvent,
    ProviderError,
    Source,
    StartEvent,
    TextBlock,
    TextDeltaEvent,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    Usage,
)
from tests.codecs.openai_chat.helpers import decode_stream, every_split
from tests.codecs.openai_chat.streams import STREAMS


def message(name: str, provider: str = "openai") -> AssistantMessage:
    out = decode_stream(STREAMS[name], provider)
    assert out.error is None, out.error
    assert out.message is not None
    return out.message


def partial(name: str, provider: str = "openai") -> tuple[ProviderError, AssistantMessage]:
    out = decode_stream(STREAMS[name], provider)
    assert out.error is not None and out.partial is not None
    return out.error, out.partial


# framing and usage ------------------------------------------------------------------------------


def test_text_with_multibyte_characters_and_usage_after_the_finish_chunk() -> None:
    out = every_split(STREAMS["text_multibyte_usage_after_finish"])
    assert out.message is not None
    assert out.message.content == [TextBlock(text="café ☕ 日本")]
    assert (out.message.stop_reason, out.message.raw_stop_reason) == ("stop", "stop")
    assert out.message.usage == Usage(
        input_tokens=40, output_tokens=12, cache_read_tokens=32, cache_write_tokens=4, reasoning_tokens=5
    )
    assert (out.message.provider, out.message.model) == ("openai", "m-1")


def test_perplexity_stream_ends_with_its_done_chunk() -> None:
    """The message so far repeated in `choices[].message` is not read again, the usage so far in
    every chunk is replaced (not summed) by the done chunk's, and `<think>` becomes thinking."""
    out = every_split(STREAMS["perplexity_done_chunk"], "perplexity")
    assert out.message is not None and out.error is None
    assert out.message.content == [ThinkingBlock(thinking="Count."), TextBlock(text="1 2 3")]
    assert (out.message.stop_reason, out.message.raw_stop_reason) == ("stop", "stop")
    assert out.message.usage == Usage(input_tokens=8, output_tokens=9)
    assert out.message.sources == [Source(url="https://example.org/a", title="A")]


def test_perplexity_stream_cut_before_its_done_chunk_is_interrupted() -> None:
    error, part = partial("perplexity_cut_before_done", "perplexity")
    assert error.kind == "stream_interrupted"
    assert part.content == [ThinkingBlock(thinking="Count."), TextBlock(text="1 2 3")]
    assert part.stop_reason is None


def test_a_later_null_usage_never_erases_it() -> None:
    msg = message("usage_then_null_usage")
    assert msg.usage is not None and msg.usage.output_tokens == 12


def test_done_is_optional() -> None:
    assert message("no_done").stop_reason == "stop"


def test_no_finish_reason_is_an_interrupted_stream_with_the_partial_kept() -> None:
    error, kept = partial("no_finish_reason")
    assert error.kind == "stream_interrupted"
    assert kept.content == [TextBlock(text="The first")] and kept.stop_reason is None


def test_done_ends_a_stream_that_names_no_finish_reason() -> None:
    # `data: [DONE]` is the documented end of an OpenAI stream; Snowflake Cortex sends no finish_reason
    done = message("done_without_finish_reason")
    assert done.content == [TextBlock(text="The first")]
    assert (done.stop_reason, done.raw_stop_reason) == ("stop", None)


def test_a_stream_cut_inside_its_last_frame_is_interrupted_not_corrupt() -> None:
    error, kept = partial("cut_inside_last_frame")
    assert error.kind == "stream_interrupted"
    assert kept.content == [] and kept.stop_reason is None


def test_comments_crlf_and_chunks_without_choices() -> None:
    msg = message("comments_crlf_and_empty_choices", "openrouter")
    assert msg.content == [TextBlock(text="Hi")] and msg.stop_reason == "stop"
    assert msg.usage is not None and msg.usage.input_tokens == 40


def test_only_choice_zero_is_read() -> None:
    msg = message("second_choice_ignored")
    assert msg.content == [TextBlock(text="zero")] and msg.stop_reason == "stop"


def test_groq_usage_from_x_groq() -> None:
    msg = message("x_groq_usage", "groq")
    assert msg.usage == Usage(input_tokens=36, output_tokens=8)


def test_finish_reasons_by_table() -> None:
    assert (message("length").stop_reason, message("length").raw_stop_reason) == ("length", "length")
    assert message("content_filter").stop_reason == "content_filter"
    assert message("empty_and_invalid_arguments").stop_reason == "tool_use"  # legacy function_call


def test_a_finish_reason_outside_the_table_still_finishes_the_message() -> None:
    msg = message("unlisted_finish_reason", "openai-compatible")
    assert (msg.stop_reason, msg.raw_stop_reason) == ("stop", "eos")


def test_refusal_is_text_with_stop_reason_refusal() -> None:
    msg = message("refusal")
    assert msg.content == [TextBlock(text="I can't help.")]
    assert (msg.stop_reason, msg.raw_stop_reason) == ("refusal", "stop")


# tool calls -------------------------------------------------------------------------------------


def test_parallel_calls_interleaved_by_index() -> None:
    msg = every_split(STREAMS["parallel_calls_by_index"]).message
    assert msg is not None
    assert msg.content == [
        ToolCallBlock(id="call_a", name="f", arguments={"x": 1}),
        ToolCallBlock(id="call_b", name="g", arguments={"y": 2}),
    ]
    assert msg.stop_reason == "tool_use"


def test_repeated_id_and_name_on_every_delta_are_not_doubled() -> None:
    assert message("repeated_id_and_name").content == [ToolCallBlock(id="call_a", name="f", arguments={"a": 1})]


def test_all_calls_on_index_zero_are_told_apart_by_id() -> None:
    assert message("all_calls_on_index_zero").content == [
        ToolCallBlock(id="call_a", name="f", arguments={"n": 1}),
        ToolCallBlock(id="call_b", name="f", arguments={"n": 2}),
    ]


def test_whole_calls_in_one_chunk() -> None:
    for provider in ("groq", "xai"):
        assert message("whole_calls_in_one_chunk", provider).content == [
            ToolCallBlock(id="tk85n1k4m", name="f", arguments={"q": 1}),
            ToolCallBlock(id="tk9", name="g", arguments={}),
        ]


def test_calls_without_index_are_keyed_by_id() -> None:
    assert message("calls_without_index", "mistral").content == [
        ToolCallBlock(id="gSIMJiOkT", name="f", arguments={"q": "x"}),
        ToolCallBlock(id="Xb2kQ9aZ1", name="g", arguments={}),
    ]


def test_calls_without_ids_get_positional_ids() -> None:
    expected = [ToolCallBlock(id="call_0", name="f", arguments={"a": 1}), ToolCallBlock(id="call_1", name="g")]
    assert message("calls_without_id").content == expected
    assert message("calls_without_id_or_index", "openai-compatible").content == expected


def test_empty_and_invalid_arguments() -> None:
    assert message("empty_and_invalid_arguments").content == [
        ToolCallBlock(id="call_a", name="now", arguments={}),
        ToolCallBlock(id="call_b", name="f", arguments={}, raw_arguments='{"city": "Par'),
    ]


def test_stream_events_for_text_and_a_tool_call() -> None:
    acc = OpenAIChatStream(get_profile("openai"))
    events = acc.feed(STREAMS["text_then_call_args_multibyte"])
    msg = acc.finish()
    assert msg.content == [TextBlock(text="日本"), ToolCallBlock(id="call_a", name="f", arguments={"k": "é☕"})]
    assert events == [
        StartEvent(),
        TextDeltaEvent(index=0, delta="日本"),
        ToolCallStartEvent(index=1, id="call_a", name="f"),
        ToolCallDeltaEvent(index=1, delta='{"k": "é'),
        ToolCallDeltaEvent(index=1, delta='☕"}'),
        ToolCallEndEvent(index=1),
        DoneEvent(message=msg),  # on the finish chunk, which carries the usage
    ]


def test_done_waits_for_the_usage_chunk_after_the_finish_chunk() -> None:
    acc = OpenAIChatStream(get_profile("openai"))
    events = acc.feed(STREAMS["text_multibyte_usage_after_finish"])
    msg = acc.finish()
    assert msg.usage is not None
    assert [e.type for e in events] == ["start", "text_delta", "done"]
    assert events[-1] == DoneEvent(message=msg)


def test_an_error_event_carries_the_partial() -> None:
    acc = OpenAIChatStream(get_profile("openai"))
    events = acc.feed(STREAMS["error_object_mid_stream"])
    msg = acc.finish()
    assert msg.error is not None
    assert events[-1] == ErrorEvent(error=msg.error, partial=msg)


# errors inside the 200 stream -------------------------------------------------------------------


def test_error_object_mid_stream() -> None:
    error, kept = partial("error_object_mid_stream")
    assert (error.kind, error.message, error.status) == ("server", "boom", None)
    assert kept.content == [TextBlock(text="partial")] and kept.stop_reason == "error"


def test_openrouter_error_chunk_with_finish_reason_error() -> None:
    error, kept = partial("openrouter_error_chunk", "openrouter")
    assert (error.kind, error.provider_code, error.status) == ("server", "upstream_disconnect", 502)
    assert kept.content == [TextBlock(text="Hel")]
    assert (kept.stop_reason, kept.raw_stop_reason) == ("error", "error")


def test_groq_error_event() -> None:
    error, kept = partial("groq_error_event", "groq")
    assert (error.kind, error.provider_code, error.status) == ("invalid_request", "tool_use_failed", 400)
    assert kept.content == [TextBlock(text="x")]


def test_an_error_keeps_the_usage_already_seen() -> None:
    error, kept = partial("error_after_usage")
    assert error.message == "late"
    assert kept.usage is not None and kept.usage.input_tokens == 40


def test_a_frame_that_is_not_json_is_a_typed_error() -> None:
    error, kept = partial("frame_not_json")
    assert error.kind == "server" and "SSE event 2" in error.message
    assert kept.content == [TextBlock(text="a")]


# reasoning --------------------------------------------------------------------------------------


def test_reasoning_content_before_content() -> None:
    assert message("reasoning_content", "deepseek").content == [
        ThinkingBlock(thinking="Think more."),
        TextBlock(text="Answer."),
    ]


def test_groq_reasoning_field() -> None:
    assert message("groq_reasoning_field", "groq").content == [
        ThinkingBlock(thinking="Count: 2+2."),
        TextBlock(text="4"),
    ]


def test_reasoning_fields_are_read_only_where_the_profile_reads_them() -> None:
    assert message("reasoning_content", "mistral").content == [TextBlock(text="Answer.")]


def test_openai_reads_a_proxys_reasoning_content_and_never_sends_it_back() -> None:
    """OpenAI itself sends no reasoning text; a server answering in its name may (vLLM, LiteLLM)."""
    assert message("reasoning_content", "openai").content == [
        ThinkingBlock(thinking="Think more."),
        TextBlock(text="Answer."),
    ]
    assert get_profile("openai").reasoning_fields == ()  # nothing to send reasoning back in


def test_openrouter_reasoning_details_preferred_over_reasoning() -> None:
    msg = message("openrouter_reasoning_details", "openrouter")
    assert [b.model_dump(exclude_none=True) for b in msg.content] == [
        {"type": "thinking", "thinking": "Plan", "signature": "sig=="},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "Done"},
    ]


def test_openrouter_reasoning_summary_and_plain_reasoning() -> None:
    assert message("openrouter_reasoning_summary", "openrouter").content == [
        ThinkingBlock(thinking="Summed."),
        TextBlock(text="Ok"),
    ]
    assert message("openrouter_reasoning_only", "openrouter").content == [
        ThinkingBlock(thinking="Hmm"),
        TextBlock(text="Yes"),
    ]


def test_xai_output_tokens_add_the_reasoning_tokens() -> None:
    usage = message("xai_usage", "xai").usage
    assert usage is not None and (usage.output_tokens, usage.reasoning_tokens) == (25, 20)


def test_think_tags_split_across_chunks() -> None:
    out = every_split(STREAMS["think_tags_split"], "fireworks")
    assert out.message is not None
    assert out.message.content == [ThinkingBlock(thinking="Let me see."), TextBlock(text="The answer is 4. a<b")]


def test_think_tags_are_plain_text_without_the_flag() -> None:
    assert message("think_tags_split", "openai").content == [
        TextBlock(text="<think>Let me see.</think>The answer is 4. a<b")
    ]


def test_think_tag_state_is_fresh_for_every_stream() -> None:
    assert message("think_tag_never_closed", "groq").content == [ThinkingBlock(thinking="never closed")]
    assert message("plain", "groq").content == [TextBlock(text="plain")]


def test_mistral_typed_content_chunks() -> None:
    msg = message("mistral_typed_content", "mistral")
    assert msg.content == [ThinkingBlock(thinking="Hmm. Yes."), TextBlock(text="Yes.")]
    assert msg.usage is not None and msg.usage.input_tokens == 40
