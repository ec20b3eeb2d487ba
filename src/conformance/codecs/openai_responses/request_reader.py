"""Responses API requests as the provider reads them: the table of equivalences (sources cited).

`read(body)` gives the canonical request (conversation, tools, options); `conformance.codecs.
request_form.request_findings` compares two bodies under this table.
"""

from __future__ import annotations

from typing import Any

from conformance.codecs.request_form import CanonicalRequest, Default, RequestTable, ValueAlias, read_request

_REF = "https://platform.openai.com/docs/api-reference/responses/create"
_WIRE = "provider-wire-formats.md §2.2"

TABLE = RequestTable(
    dialect="openai_responses",
    conversation=frozenset({"input", "instructions", "previous_response_id", "conversation"}),
    tools=frozenset({"tools", "tool_choice", "parallel_tool_calls", "max_tool_calls"}),
    defaults=(
        Default("stream", False, f"{_REF} (stream: defaults to false)"),
        Default("store", True, f"{_REF} (store: defaults to true)"),
        Default("tool_choice", "auto", f"{_REF} (tool_choice: auto by default with tools)", when="tools"),
        Default("parallel_tool_calls", True, f"{_REF} (parallel_tool_calls: defaults to true)"),
        Default("tools.*.strict", True, f"{_REF} (function tool strict: defaults to true)"),
        Default(
            "tools.*.parameters.required",
            [],
            "JSON Schema 2020-12 §6.5.3 (required: omitting it is the same as an empty array)",
        ),
        Default("truncation", "disabled", f"{_REF} (truncation: defaults to disabled)"),
        Default("background", False, f"{_REF} (background: defaults to false)"),
        Default("input.*.type", "message", f"{_REF} (input message item: type is always message, optional); {_WIRE}"),
    ),
    values=(
        ValueAlias(
            "input.*.role",
            "developer",
            "system",
            f"{_REF} (developer instructions take precedence like system ones for reasoning models); {_WIRE}",
            when="developer_is_system",
        ),
    ),
    informational={
        "user": f"{_REF} (user: an end-user identifier for abuse monitoring)",
        "metadata": f"{_REF} (metadata: key-value pairs attached to the stored object)",
        "safety_identifier": f"{_REF} (safety_identifier: an end-user identifier)",
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
