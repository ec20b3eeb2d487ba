"""generateContent requests as Gemini reads them: the table of equivalences (sources cited).

`read(body)` gives the canonical request (conversation, tools, options); `conformance.codecs.
request_form.request_findings` compares two bodies under this table, and its path aliases map
the API versions Google serves alike.
"""

from __future__ import annotations

import base64
from typing import Any

from conformance.codecs.request_form import (
    CanonicalRequest,
    Default,
    PathAlias,
    RequestTable,
    ValueAlias,
    read_request,
)

_REF = "https://ai.google.dev/api/generate-content"
_CALLING = "https://ai.google.dev/api/caching#FunctionCallingConfig"
_VERSIONS = "https://ai.google.dev/gemini-api/docs/api-versions"
_WIRE = "provider-wire-formats.md §4.2"
_SIGNATURES = "https://ai.google.dev/gemini-api/docs/thought-signatures#faqs"

# The dummy signatures Google documents for calls that carry none ("skip_thought_signature_validator",
# "context_engineering_is_the_way_to_go"): its REST examples write them as they are, its SDKs hold
# them as bytes and send the base64 of those bytes (`Part.thoughtSignature` is a `bytes` field:
# https://ai.google.dev/api/caching#Part). Either spelling is the documented sentinel.
_SENTINELS = ("skip_thought_signature_validator", "context_engineering_is_the_way_to_go")

TABLE = RequestTable(
    dialect="gemini",
    token_limit_at="generationConfig",
    conversation=frozenset({"contents", "systemInstruction"}),
    tools=frozenset({"tools", "toolConfig"}),
    defaults=(
        Default("toolConfig.functionCallingConfig.mode", "AUTO", f"{_CALLING} (mode: AUTO is the default behavior)"),
        Default("toolConfig.functionCallingConfig", {}, f"{_CALLING} (an empty config is the default)"),
        Default("toolConfig", {}, f"{_REF} (toolConfig: optional)"),
        Default("generationConfig.candidateCount", 1, f"{_REF} (candidateCount: defaults to 1)"),
        Default(
            "generationConfig.responseModalities",
            ["TEXT"],
            f"{_REF}#GenerationConfig (responseModalities: an empty list is equivalent to requesting only text)",
        ),
        Default("generationConfig", {}, f"{_REF} (generationConfig: optional, every field optional)"),
        Default(
            "contents.*.role", "user", f"https://ai.google.dev/api/caching#Content (role: defaults to user); {_WIRE}"
        ),
        Default(
            "systemInstruction.role",
            "user",
            "https://ai.google.dev/api/caching#Content (systemInstruction is a Content: role defaults to user; "
            "the google-genai SDK sends it)",
        ),
    ),
    values=tuple(
        ValueAlias(
            "contents.*.parts.*.thoughtSignature",
            base64.b64encode(sentinel.encode()).decode(),
            sentinel,
            f"{_SIGNATURES} (the sentinel, as REST examples write it and as the SDKs send it: base64 of "
            "its bytes, thoughtSignature being a bytes field)",
        )
        for sentinel in _SENTINELS
    ),
    stream_addresses=(
        PathAlias(
            ":streamGenerateContent",
            ":generateContent",
            f"{_REF}#method:-models.streamgeneratecontent (generates a streamed response: the same "
            "GenerateContentResponse, in parts; alt=sse frames it as server-sent events)",
        ),
    ),
    stream_query=(("alt", "sse"),),
    bytes_fields=(
        (
            "contents.*.parts.*.thoughtSignature",
            "https://protobuf.dev/programming-guides/proto3/#json (bytes: JSON value will be the data encoded "
            "as a string using standard base64 encoding with paddings. Either standard or URL-safe base64 "
            "encoding with/without paddings are accepted.); https://ai.google.dev/api/caching#Part "
            "(thoughtSignature: string (bytes format))",
        ),
    ),
    proto_names=(
        "https://protobuf.dev/programming-guides/proto3/#json (Parsers accept both the lowerCamelCase name (or "
        "the one specified by the json_name option) and the original proto field name); the Gemini API's REST "
        "body is that JSON (https://ai.google.dev/api/generate-content#request-body); real 2xx: "
        "google_gemini/generate_content/pydantic-ai--test_multiple_agent_tool_calls.yaml sends function_declarations"
    ),
    free_form=("args", "response", "parametersJsonSchema", "responseJsonSchema", "labels"),
    path_aliases=(
        PathAlias("/v1/models/", "/v1beta/models/", f"{_VERSIONS} (v1 and v1beta serve generateContent alike)"),
    ),
)


def read(body: Any) -> CanonicalRequest:
    """Wire body → canonical request under this dialect's table."""
    return read_request(TABLE, body)
