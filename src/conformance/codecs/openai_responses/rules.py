"""OpenAI Responses (and the servers speaking it): the provider rule book (see
`conformance.codecs.rulebook`)."""

from __future__ import annotations

from conformance.codecs.rulebook import CHECKED, Rule, RuleBook, doc, real_4xx
from conformance.codecs.token_limits import token_limit_rules

_REF = "https://platform.openai.com/docs/api-reference/responses/create"
_WIRE = "provider-wire-formats.md §2 (observed)"

BOOK = RuleBook(
    dialect="openai_responses",
    rules=(
        Rule("model_required", "answers 400 to a request without `model`", (doc(_REF, "model: string, Required"),)),
        Rule(
            "input_required",
            "answers 400 to a request without `input`",
            (doc(_REF, "input: string or array. Text, image, or file inputs to the model"),),
        ),
        Rule(
            "role",
            "answers 400 to a message item with an unknown role",
            (doc(_REF, "role: one of user, assistant, system, or developer"),),
            checked=CHECKED,
        ),
        Rule(
            "call_id",
            "answers 400 to a function_call item without a call_id",
            (doc(_REF, "function_call.call_id: string, Required"),),
            checked=CHECKED,
        ),
        Rule(
            "arguments_string",
            "answers 400 to function_call arguments that are not a JSON string",
            (doc(_REF, "function_call.arguments: string, Required. A JSON string of the arguments"),),
            checked=CHECKED,
        ),
        Rule(
            "orphan_call_output",
            "answers 400 to a function_call_output without its function_call",
            (
                real_4xx(
                    _WIRE,
                    "No tool call found for function call output with call_id call_...",
                ),
            ),
        ),
        Rule(
            "call_unanswered",
            "answers 400 to a function_call without its output before the next message",
            (
                real_4xx(
                    "deepseek/responses/pydantic-ai--test_deepseek_responses_rejects_interleaved_function_calls.yaml",
                    "No tool output found for tool call call-a.",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "pending_call",
            "answers 400 to an input ending with a function_call without its output",
            (real_4xx(_WIRE, "No tool output found for function call call_..."),),
            checked=CHECKED,
        ),
        Rule(
            "reasoning_following_item",
            "answers 400 to a reasoning item without the item it led to after it",
            (
                real_4xx(
                    _WIRE,
                    "Item 'rs_..' of type 'reasoning' was provided without its required following item.",
                ),
            ),
        ),
        Rule(
            "reasoning_encrypted_content",
            "answers 404 to a bare reasoning item id when store is false",
            (
                real_4xx(
                    _WIRE,
                    "Item with id 'rs_..' not found. Items are not persisted when store is set to false.",
                ),
            ),
            status=404,
        ),
        Rule(
            "flat_tool",
            "answers 400 to a function tool nested as in Chat Completions",
            (doc(_REF, "tools[] function: name: string, Required (on the tool itself)"),),
            checked=CHECKED,
        ),
        Rule(
            "min_max_tokens",
            "answers 400 to max_output_tokens below the provider's minimum (OpenAI: 16)",
            (
                doc(
                    _REF,
                    "max_output_tokens: integer or null. An upper bound for the number of tokens that can be generated",
                ),
            ),
        ),
        Rule(
            "temperature_range",
            "answers 400 to a temperature outside 0..2",
            (
                real_4xx(
                    "openai/responses/pydantic-ai--test_openai_responses_model_http_error.yaml",
                    "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead.",
                ),
            ),
            kind="value",
            checked=CHECKED,
        ),
        Rule(
            "file_data_url",
            "answers 400 to an input_file whose file_data is not a base64 data URL",
            (
                real_4xx(
                    "openai/responses/pydantic-ai--test_multimodal_tool_return_matrix_tool_return_content-"
                    "url_force_download-audio-openai_responses_.yaml",
                    "Invalid file data: 'input[4].content[0].file_data'. Expected a base64-encoded data URL with a "
                    "valid file MIME type",
                ),
            ),
            checked=CHECKED,
        ),
        *token_limit_rules(
            required=None,
            max_output=doc(
                "https://platform.openai.com/docs/models/gpt-4.1",
                "Max output tokens: 32,768 (each model page lists its maximum output tokens)",
            ),
            window=real_4xx(
                "openai/responses/ruby_llm--chat_real_error_scenarios_openai_gpt-5-nano_handles_context_length_"
                "exceeded_errors.yaml",
                "Your input exceeds the context window of this model. Please adjust your input and try again.",
            ),
        ),
    ),
)
