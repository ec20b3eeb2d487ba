"""/api/chat requests as Ollama reads them: the table of equivalences (sources cited).

`read(body)` gives the canonical request (conversation, tools, options); `conformance.codecs.
request_form.request_findings` compares two bodies under this table.
"""

from __future__ import annotations

from typing import Any

from conformance.codecs.request_form import CanonicalRequest, Default, RequestTable, read_request

_REF = "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion"
_WIRE = "provider-wire-formats.md §5.2"

TABLE = RequestTable(
    dialect="ollama",
    token_limit_at="options",
    conversation=frozenset({"messages"}),
    tools=frozenset({"tools"}),
    defaults=(
        Default("stream", True, f"{_REF} (stream: if false the response is one object; streamed otherwise); {_WIRE}"),
        Default("options", {}, f"{_REF} (options: optional model parameters)"),
        Default(
            "tools.*.function.parameters.required",
            [],
            "JSON Schema 2020-12 §6.5.3 (required: omitting it is the same as an empty array)",
        ),
    ),
    informational={"keep_alive": f"{_REF} (keep_alive: how long the model stays loaded)"},
    delivery={"stream": f"{_REF} (stream: if false the response is returned as one object, not a stream)"},
)


def read(body: Any) -> CanonicalRequest:
    """Wire body → canonical request under this dialect's table."""
    return read_request(TABLE, body)
