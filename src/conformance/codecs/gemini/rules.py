"""Gemini generateContent (Gemini API and Vertex AI): the provider rule book (see
`conformance.codecs.rulebook`)."""

from __future__ import annotations

from conformance.codecs.rulebook import CHECKED, Rule, RuleBook, Scope, Source, doc, real_2xx, real_4xx
from conformance.codecs.token_limits import token_limit_rules

SCHEMA_KEYWORD = "schema_keyword."
"""Rule ids `schema_keyword.<keyword>`: a JSON-schema keyword in function-declaration `parameters`."""

_REF = "https://ai.google.dev/api/generate-content"
_SCHEMA = "https://ai.google.dev/api/caching#Schema"
_UNKNOWN = (
    "Invalid JSON payload received. Unknown name \"{kw}\" at 'tools[0].function_declarations[0].parameters': "
    "Cannot find field."
)
_WIRE = "provider-wire-formats.md §4.3 (observed 400s)"
_G = "google_gemini/generate_content/"
_CREWAI_3 = _G + "crewai--TestGeminiNativeToolCalling.test_gemini_parallel_native_tool_calling_test_agent_kickoff.yaml"
_PAI_3FLASH = (
    _G
    + "pydantic-ai--test_cross_provider_capability_replay_google-gemini-3-flash-preview-openai-responses-gpt-5.4_.yaml"
)
_PAI_25 = _G + "pydantic-ai--test_multimodal_tool_return_matrix_direct-uploaded_file-document-google_2_5_.yaml"
_EVERYWHERE = Scope()


def _keyword(kw: str, sources: tuple[Source, ...], scope: Scope = _EVERYWHERE) -> Rule:
    return Rule(
        SCHEMA_KEYWORD + kw,
        f"answers 400 to `{kw}` in function-declaration parameters",
        sources,
        scope=scope,
        kind="schema",
        checked=CHECKED if sources else "",
    )


_OBSERVED = (
    "$schema",
    "const",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "propertyNames",
    "examples",
    "uniqueItems",
    "multipleOf",
)
_UNSOURCED = (
    "$ref", "$defs", "definitions", "$id", "$comment", "default", "patternProperties", "unevaluatedProperties",
    "dependentRequired", "dependentSchemas", "contentEncoding", "contentMediaType", "readOnly", "writeOnly", "deprecated",  # noqa: E501
)  # fmt: skip

BOOK = RuleBook(
    dialect="gemini",
    rules=(
        Rule(
            "contents_required",
            "answers 400 to a request without contents",
            (
                doc(
                    _REF,
                    "contents[]: object (Content). Required. The content of the current conversation with the model.",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "role",
            "answers 400 to a role other than user or model",
            (real_4xx("provider-wire-formats.md §4.2 (observed)", "Please use a valid role: user, model."),),
            checked=CHECKED,
        ),
        Rule("first_user", "(no source) contents that start with a model turn"),
        Rule(
            "alternation",
            "answered 400 to consecutive same-role contents (gemini-pro, 2024)",
            (
                real_4xx(
                    "https://github.com/Portkey-AI/gateway/pull/246 (gemini-pro, 2024-03; the message quoted in its "
                    "src/providers/google/chatComplete.ts)",
                    "Please ensure that multiturn requests alternate between user and model.",
                ),
            ),
            scope=Scope(models=("gemini-pro", "gemini-1.0")),
            contradicted_by=(
                real_2xx(_CREWAI_3, "gemini-2.5-flash: three consecutive user contents of function responses: 200"),
                real_2xx(_PAI_3FLASH, "gemini-3-flash-preview: two consecutive model contents of calls: 200"),
                real_2xx(_PAI_25, "gemini-2.5-flash: a function-response user content, then a user text content: 200"),
            ),
            checked=CHECKED,
        ),
        Rule(
            "call_after_user",
            "answers 400 to a function-call turn that does not follow a user or function-response turn",
            (
                real_4xx(
                    "https://github.com/google-gemini/gemini-cli/issues/11814",
                    "Please ensure that function call turn comes immediately after a user turn or after a function "
                    "response turn.",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "response_after_call",
            "answers 400 to a function-response turn that does not follow a function-call turn",
            (
                real_4xx(
                    "https://github.com/langchain-ai/langchain/issues/27799",
                    "Please ensure that function response turn comes immediately after a function call turn.",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "response_count",
            "answers 400 when a function-response turn holds another number of parts than the call turn's calls "
            "(consecutive same-role contents read as one turn)",
            (
                real_4xx(
                    "https://github.com/google-gemini/gemini-cli/issues/4217",
                    "Please ensure that the number of function response parts is equal to the number of function "
                    "call parts of the function call turn.",
                ),
            ),
            contradicted_by=(
                real_2xx(_CREWAI_3, "3 calls answered by 3 consecutive user contents of 1 response: 200"),
            ),
            checked=CHECKED,
        ),
        Rule(
            "pending_call",
            "answers 400 to a request ending with a function-call turn",
            (
                real_4xx(
                    "https://github.com/songquanpeng/one-api/issues/836",
                    "Please ensure that multiturn requests ends with a user role or a function response.",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "response_object",
            "answers 400 to a functionResponse.response that is not an object",
            (doc("https://ai.google.dev/api/caching#FunctionResponse", "response: object (Struct format). Required."),),
            checked=CHECKED,
        ),
        *(_keyword(kw, (real_4xx(_WIRE, _UNKNOWN.format(kw=kw)),)) for kw in _OBSERVED),
        _keyword(
            "additionalProperties",
            (real_4xx(_WIRE, _UNKNOWN.format(kw="additionalProperties") + " (Gemini Developer API)"),),
            Scope(profiles=("gemini",)),
        ),
        *(_keyword(kw, ()) for kw in _UNSOURCED),
        Rule(
            "schema_type_array",
            "answers 400 to a type array (nullable is written `nullable: true`)",
            (doc(_SCHEMA, "type: enum (Type). Required. Data type."),),
            checked=CHECKED,
        ),
        Rule(
            "schema_enum_strings",
            "answers 400 to enum values that are not strings",
            (real_4xx("provider-wire-formats.md §4.3 (observed)", "Invalid value at ...enum[0] (TYPE_STRING)"),),
            checked=CHECKED,
        ),
        Rule(
            "schema_format",
            "answers 400 to a string format other than enum and date-time",
            (
                real_4xx(
                    "provider-wire-formats.md §4.3 (observed)",
                    "format: only 'enum' and 'date-time' are supported for STRING type",
                ),
            ),
            checked=CHECKED,
        ),
        *token_limit_rules(
            required=None,
            max_output=doc(
                "https://ai.google.dev/gemini-api/docs/models#gemini-2.5-flash",
                "Output token limit: 65,536",
            ),
            window=real_4xx(
                "google_vertex/generate_content/ruby_llm--chat_real_error_scenarios_vertexai_gemini-2_5-flash_"
                "handles_context_length_exceeded_errors.yaml",
                "The input token count (1250074) exceeds the maximum number of tokens allowed (1048576).",
            ),
        ),
    ),
)
