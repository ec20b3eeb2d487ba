"""Chat Completions requests as the provider reads them: the table of equivalences (sources cited).

`read(body)` gives the canonical request (conversation, tools, options); `conformance.codecs.
request_form.request_findings` compares two bodies under this table.
"""

from __future__ import annotations

from typing import Any

from conformance.codecs.request_form import (
    CanonicalRequest,
    Default,
    Rename,
    RequestTable,
    TextBlocks,
    ValueAlias,
    read_request,
)

_REF = "https://platform.openai.com/docs/api-reference/chat/create"
_WIRE = "provider-wire-formats.md §1.2"

TABLE = RequestTable(
    dialect="openai_chat",
    conversation=frozenset({"messages"}),
    tools=frozenset({"tools", "tool_choice", "parallel_tool_calls"}),
    defaults=(
        Default("stream", False, f"{_REF} (stream: defaults to false)"),
        Default(
            "tool_choice",
            "auto",
            f"{_REF} (tool_choice: auto is the default if tools are present); {_WIRE}",
            when="tools",
        ),
        Default("parallel_tool_calls", True, f"{_REF} (parallel_tool_calls: defaults to true)"),
        Default("tools.*.function.strict", False, f"{_REF} (function.strict: defaults to false)"),
        Default(
            "tools.*.function.parameters.required",
            [],
            "JSON Schema 2020-12 §6.5.3 (required: omitting it is the same as an empty array)",
        ),
        Default("n", 1, f"{_REF} (n: defaults to 1)"),
        Default("store", False, f"{_REF} (store: defaults to false)"),
        Default("logprobs", False, f"{_REF} (logprobs: defaults to false)"),
        Default("presence_penalty", 0, f"{_REF} (presence_penalty: defaults to 0)"),
        Default("frequency_penalty", 0, f"{_REF} (frequency_penalty: defaults to 0)"),
    ),
    renames=(
        Rename(
            "max_tokens",
            "max_completion_tokens",
            f"{_REF} (max_tokens: deprecated in favor of max_completion_tokens); {_WIRE}",
            when="max_completion_tokens_alias",
        ),
    ),
    values=(
        ValueAlias(
            "messages.*.role",
            "developer",
            "system",
            f"{_REF} (messages: with o1 models and newer, developer messages replace system messages); {_WIRE}",
            when="developer_is_system",
        ),
    ),
    text_blocks=(
        TextBlocks(
            "messages.*.content",
            f"{_REF} (content: the text contents of the message, or an array of content parts); {_WIRE}",
        ),
    ),
    informational={
        "user": f"{_REF} (user: an end-user identifier for abuse monitoring)",
        "metadata": f"{_REF} (metadata: key-value pairs attached to the stored object)",
        "safety_identifier": f"{_REF} (safety_identifier: an end-user identifier for policy monitoring)",
        "prompt_cache_key": f"{_REF} (prompt_cache_key: a cache-bucketing hint)",
        "service_tier": f"{_REF} (service_tier: the processing tier, not the answer)",
    },
    delivery={
        "stream": f"{_REF} (stream: the response is streamed as server-sent events as it is generated)",
        "stream_options": f"{_REF} (stream_options: options for a streamed response, set only with stream)",
    },
)


def read(body: Any) -> CanonicalRequest:
    """Wire body → canonical request under this dialect's table."""
    return read_request(TABLE, body)
