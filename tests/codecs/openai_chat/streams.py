"""Hand-written `chat.completion.chunk` SSE bodies, shaped after the wire reference (sections 1.4,
6 and 9), one per behaviour the stream tests check.

Every body here is also decoded under arbitrary re-chunking (`test_rechunk.py`): a stream test
takes its body from `STREAMS`, so add new ones there.
"""

from __future__ import annotations

from typing import Any

from tests.codecs.openai_chat.helpers import chunk, sse

USAGE = {
    "prompt_tokens": 40,
    "completion_tokens": 12,
    "total_tokens": 52,
    "prompt_tokens_details": {"cached_tokens": 32, "cache_write_tokens": 4},
    "completion_tokens_details": {"reasoning_tokens": 5},
}


def call(
    index: int | None = None, id: str | None = None, name: str | None = None, arguments: str | None = None
) -> dict[str, Any]:
    """One `delta.tool_calls[]` entry with only the given keys."""
    fn = {k: v for k, v in (("name", name), ("arguments", arguments)) if v is not None}
    entry: dict[str, Any] = {"function": fn}
    if index is not None:
        entry["index"] = index
    if id is not None:
        entry |= {"id": id, "type": "function"}
    return entry


def calls(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": list(entries)}


GROQ_TOOL_FAILED = {
    "error": {
        "message": "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": '<function=f>{"a": 1}</function>',
        "status_code": 400,
    }
}

STREAMS: dict[str, bytes] = {
    # text, usage, framing
    "text_multibyte_usage_after_finish": sse(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "café ☕ 日本"}),
        chunk({}, "stop"),
        chunk(None, usage=USAGE),
    ),
    "usage_then_null_usage": sse(chunk({"content": "hi"}, "stop", usage=USAGE), chunk({}, None, usage=None)),
    "no_done": sse(chunk({"content": "ok"}, "stop"), done=False),
    "no_finish_reason": sse(chunk({"content": "The first"}), done=False),
    "done_without_finish_reason": sse(chunk({"content": "The first"})),
    "comments_crlf_and_empty_choices": (
        b": OPENROUTER PROCESSING\r\n\r\n"
        + sse(chunk(None, provider="Anthropic"))
        + b": keep-alive\n\n"
        + sse(chunk({"content": "Hi"}, "stop"), chunk(None, usage=USAGE)).replace(b"\n", b"\r\n")
    ),
    "second_choice_ignored": sse(
        chunk({"content": "zero"}),
        {"id": "c", "model": "m-1", "choices": [{"index": 1, "delta": {"content": "one"}, "finish_reason": None}]},
        {"id": "c", "model": "m-1", "choices": [{"index": 1, "delta": {}, "finish_reason": "length"}]},
        chunk({}, "stop"),
    ),
    "x_groq_usage": sse(
        chunk({"role": "assistant", "content": "Hey"}, x_groq={"id": "req_01"}),
        chunk(
            {},
            "stop",
            x_groq={"id": "req_01", "usage": {"queue_time": 0.01, "prompt_tokens": 36, "completion_tokens": 8}},
        ),
    ),
    "length": sse(chunk({"content": "Once upon"}), chunk({}, "length")),
    "content_filter": sse(chunk({"content": ""}), chunk({}, "content_filter")),
    "unlisted_finish_reason": sse(chunk({"content": "ok"}), chunk({}, "eos")),
    "refusal": sse(
        chunk({"role": "assistant", "content": None, "refusal": ""}),
        chunk({"refusal": "I can't "}),
        chunk({"refusal": "help."}),
        chunk({}, "stop"),
    ),
    # tool calls
    "parallel_calls_by_index": sse(
        chunk(calls(call(0, "call_a", "f", ""))),
        chunk(calls(call(1, "call_b", "g", ""))),
        chunk(calls(call(0, arguments='{"x":'))),
        chunk(calls(call(1, arguments='{"y": 2}'))),
        chunk(calls(call(0, arguments=" 1}"))),
        chunk({}, "tool_calls"),
    ),
    "repeated_id_and_name": sse(
        chunk({"role": "assistant", **calls(call(0, "call_a", "f", '{"a"'))}),
        chunk({"role": "assistant", **calls(call(0, "call_a", "f", ": 1}"))}),
        chunk({}, "tool_calls"),
    ),
    "all_calls_on_index_zero": sse(
        chunk(calls(call(0, "call_a", "f", '{"n": 1}'))),
        chunk(calls(call(0, "call_b", "f", '{"n": '))),
        chunk(calls(call(0, arguments="2}"))),
        chunk({}, "tool_calls"),
    ),
    "whole_calls_in_one_chunk": sse(
        chunk({"role": "assistant", **calls(call(0, "tk85n1k4m", "f", '{"q": 1}'), call(1, "tk9", "g", "{}"))}),
        chunk({}, "tool_calls", usage=USAGE),
    ),
    "calls_without_index": sse(
        chunk(
            {"content": "", "tool_calls": [{"id": "gSIMJiOkT", "function": {"name": "f", "arguments": '{"q": "x"}'}}]}
        ),
        chunk({"tool_calls": [{"id": "Xb2kQ9aZ1", "function": {"name": "g", "arguments": "{}"}}]}, "tool_calls"),
    ),
    "calls_without_id_or_index": sse(
        chunk(calls(call(name="f", arguments='{"a": '), call(arguments="1}"), call(name="g", arguments=""))),
        chunk({}, "tool_calls"),
    ),
    "calls_without_id": sse(
        chunk(calls(call(0, name="f", arguments='{"a":'))),
        chunk(calls(call(0, arguments=" 1}"), call(1, name="g"))),
        chunk({}, "tool_calls"),
    ),
    "empty_and_invalid_arguments": sse(
        chunk(calls(call(0, "call_a", "now", ""))),
        chunk(calls(call(1, "call_b", "f", '{"city": "Par'))),
        chunk({}, "function_call"),
    ),
    "text_then_call_args_multibyte": sse(
        chunk({"content": "日本"}),
        chunk(calls(call(0, "call_a", "f", '{"k": "é'))),
        chunk(calls(call(0, arguments='☕"}'))),
        chunk({}, "tool_calls", usage=USAGE),
    ),
    # errors inside the 200 stream
    "error_object_mid_stream": sse(
        chunk({"content": "partial"}), {"error": {"message": "boom", "type": "server_error", "code": None}}
    ),
    "openrouter_error_chunk": (
        b": OPENROUTER PROCESSING\n\n"
        + sse(
            chunk({"content": "Hel"}),
            {
                **chunk({"content": ""}, "error"),
                "error": {
                    "code": 502,
                    "message": "Provider disconnected",
                    "metadata": {"error_type": "provider_unavailable", "provider_code": "upstream_disconnect"},
                },
            },
            done=False,
        )
    ),
    "groq_error_event": sse(chunk({"content": "x"}, usage=None), done=False)
    + sse(GROQ_TOOL_FAILED, event="error", done=False),
    "error_after_usage": sse(
        chunk({"content": "a"}, usage=USAGE), {"error": {"message": "late", "type": "server_error"}}
    ),
    "frame_not_json": sse(chunk({"content": "a"}), b"{not json", chunk({}, "stop")),
    # reasoning
    "reasoning_content": sse(
        chunk({"role": "assistant", "reasoning_content": ""}),
        chunk({"reasoning_content": "Think "}),
        chunk({"reasoning_content": "more."}),
        chunk({"content": "Answer."}, "stop"),
    ),
    "groq_reasoning_field": sse(
        chunk({"reasoning": "Count: 2+2."}), chunk({"content": "4"}), chunk({"reasoning": None}, "stop")
    ),
    "openrouter_reasoning_details": sse(
        chunk({"reasoning": "Plan", "reasoning_details": [{"type": "reasoning.text", "text": "Plan", "index": 0}]}),
        chunk(
            {
                "reasoning": "",
                "reasoning_details": [{"type": "reasoning.text", "text": "", "signature": "sig==", "index": 0}],
            }
        ),
        chunk({"reasoning_details": [{"type": "reasoning.encrypted", "data": "opaque", "index": 1}]}),
        chunk({"content": "Done"}, "stop"),
    ),
    "openrouter_reasoning_summary": sse(
        chunk({"reasoning": "Sum", "reasoning_details": [{"type": "reasoning.summary", "summary": "Sum", "index": 0}]}),
        chunk(
            {"reasoning": "med.", "reasoning_details": [{"type": "reasoning.summary", "summary": "med.", "index": 0}]}
        ),
        chunk({"content": "Ok"}, "stop"),
    ),
    "openrouter_reasoning_only": sse(chunk({"reasoning": "Hmm"}), chunk({"content": "Yes"}, "stop")),
    "xai_usage": sse(
        chunk({"reasoning_content": "r"}),
        chunk(
            {"content": "x"},
            "stop",
            usage={"prompt_tokens": 10, "completion_tokens": 5, "completion_tokens_details": {"reasoning_tokens": 20}},
        ),
    ),
    "think_tags_split": sse(
        chunk({"content": "<thi"}),
        chunk({"content": "nk>Let me"}),
        chunk({"content": " see.</th"}),
        chunk({"content": "ink>The answer is 4. a<b"}),
        chunk({}, "stop"),
    ),
    "think_tag_never_closed": sse(chunk({"content": "<think>never closed"}), chunk({}, "stop")),
    "plain": sse(chunk({"content": "plain"}), chunk({}, "stop")),
    "mistral_typed_content": sse(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "Hmm."}]}]}),
        chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": " Yes."}]}]}),
        chunk({"content": [{"type": "text", "text": "Yes"}]}),
        chunk({"content": "."}, "stop", usage=USAGE),
    ),
}


def pplx(text: str, delta: str, n: int, *, done: bool = False) -> dict[str, Any]:
    """A Perplexity chunk (stream_mode full): the message so far beside the delta, the usage so far,
    citations and search results; the last one is `chat.completion.done` with the finish reason."""
    cost = {"input_tokens_cost": 0, "output_tokens_cost": 0, "total_cost": 0}
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": text},
        "delta": {"role": "assistant", "content": delta},
    }
    if done:
        choice["finish_reason"] = "stop"
        cost = {
            "input_tokens_cost": 0.00001,
            "output_tokens_cost": 0.00002,
            "request_cost": 0.005,
            "total_cost": 0.00503,
        }
    return {
        "id": "aced166e-c42e-42ea-941e-24477b147dac",
        "model": "sonar-reasoning-pro",
        "created": 1795400000,
        "usage": {
            "prompt_tokens": 8,
            "completion_tokens": n,
            "total_tokens": 8 + n,
            "search_context_size": "low",
            "cost": cost,
        },
        "citations": ["https://example.org/a"],
        "search_results": [{"title": "A", "url": "https://example.org/a", "date": None, "source": "web"}],
        "object": "chat.completion.done" if done else "chat.completion.chunk",
        "choices": [choice],
    }


STREAMS["perplexity_done_chunk"] = sse(
    pplx("<think>Count.", "<think>Count.", 1),
    pplx("<think>Count.</think>1 2", "</think>1 2", 2),
    pplx("<think>Count.</think>1 2 3", " 3", 3),
    pplx("<think>Count.</think>1 2 3", "", 9, done=True),
    done=False,
)
"""Perplexity: no `[DONE]`; the stream ends after the `chat.completion.done` chunk."""
STREAMS["perplexity_cut_before_done"] = STREAMS["perplexity_done_chunk"][
    : STREAMS["perplexity_done_chunk"].rindex(b"data: ")
]
"""The connection drops after a whole chunk but before the `chat.completion.done` one."""

_UNFINISHED = STREAMS["no_finish_reason"]
STREAMS["cut_inside_last_frame"] = _UNFINISHED[: _UNFINISHED.rindex(b"first") + 2]
"""The connection drops inside the last frame (no blank line after it)."""
