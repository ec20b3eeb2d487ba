"""Messages API requests as Anthropic reads them: the table of equivalences (sources cited).

`read(body)` gives the canonical request (conversation, tools, options); `conformance.codecs.
request_form.request_findings` compares two bodies under this table.
"""

from __future__ import annotations

from typing import Any

from conformance.codecs.request_form import CanonicalRequest, Default, RequestTable, TextBlocks, read_request

_REF = "https://docs.anthropic.com/en/api/messages"
_WIRE = "provider-wire-formats.md §3.2"
_CACHING = "https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching"

TABLE = RequestTable(
    dialect="anthropic",
    conversation=frozenset({"messages", "system"}),
    tools=frozenset({"tools", "tool_choice"}),
    defaults=(
        Default("stream", False, f"{_REF} (stream: incrementally stream the response; off unless true)"),
        Default(
            "tool_choice",
            {"type": "auto"},
            f"{_REF} (tool_choice: defaults to auto when tools are given)",
            when="tools",
        ),
        Default(
            "tool_choice.disable_parallel_tool_use", False, f"{_REF} (disable_parallel_tool_use: defaults to false)"
        ),
        Default(
            "messages.*.content.*.is_error",
            False,
            f"{_REF} (tool_result is_error: optional, false when absent); {_WIRE}",
        ),
        Default(
            "tools.*.input_schema.required",
            [],
            "JSON Schema 2020-12 §6.5.3 (required: omitting it is the same as an empty array)",
        ),
        Default("tools.*.strict", False, f"{_REF} (tools[].strict: optional, off when absent)"),
        Default(
            "tools.*.type",
            "custom",
            f'{_REF} (tools[]: a custom tool\'s type: Optional[Literal["custom"]], the type of a tool with '
            "input_schema when left out)",
        ),
    ),
    text_blocks=(
        TextBlocks("system", f"{_REF} (system: a string or an array of text blocks); {_WIRE}"),
        TextBlocks("messages.*.content", f"{_REF} (content: a string is shorthand for one text block); {_WIRE}"),
        TextBlocks(
            "messages.*.content.*.content",
            f"{_REF} (tool_result content: a string or a list of content blocks); {_WIRE}",
        ),
    ),
    informational={
        "metadata": f"{_REF} (metadata.user_id: an external identifier for the user)",
        "service_tier": f"{_REF} (service_tier: capacity tier, not the answer)",
        **{
            f"{where}.cache_control": f"{_CACHING} (cache_control: a cache breakpoint on the prefix up to this block;"
            " it changes cost and latency, not what the model reads)"
            for where in ("system.*", "messages.*.content.*", "tools.*")
        },
    },
    delivery={"stream": f"{_REF} (stream: whether to incrementally stream the response using server-sent events)"},
)


def read(body: Any) -> CanonicalRequest:
    """Wire body → canonical request under this dialect's table."""
    return read_request(TABLE, body)
