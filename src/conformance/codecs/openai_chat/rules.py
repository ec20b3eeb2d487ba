"""OpenAI Chat Completions (and the gateways speaking it): the provider rule book (see
`conformance.codecs.rulebook`)."""

from __future__ import annotations

from conformance.codecs.rulebook import CHECKED, Rule, RuleBook, Scope, doc, real_2xx, real_4xx
from conformance.codecs.token_limits import token_limit_rules

_REF = "https://platform.openai.com/docs/api-reference/chat/create"
_DS_THINKING = "https://api-docs.deepseek.com/guides/thinking_mode"
_DS_R1 = "https://api-docs.deepseek.com/guides/reasoning_model"
_REASONING = ("o1", "o3", "o4", "gpt-5")
_UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: call_..."
)

BOOK = RuleBook(
    dialect="openai_chat",
    rules=(
        Rule(
            "model_required",
            "answers 400 to a request without `model`",
            (doc(_REF, "model: string, Required"),),
            scope=Scope(flag="!deployment_in_path"),
            contradicted_by=(
                real_2xx(
                    "azure_openai/chat_completions/crewai--test_azure_async_with_max_tokens.yaml",
                    "Azure OpenAI names the deployment in the URL: a body without `model` gets 200",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "messages_required",
            "answers 400 to a request without `messages`",
            (doc(_REF, "messages: array, Required"),),
            checked=CHECKED,
        ),
        Rule(
            "role",
            "answers 400 to an unknown message role",
            (doc(_REF, "messages: developer, system, user, assistant, tool (function: deprecated)"),),
            checked=CHECKED,
        ),
        Rule(
            "system_message",
            "answers 400 to a system or developer message for a model without a system role",
            (
                real_4xx(
                    "openai/chat_completions/pydantic-ai--test_openai_o1_mini_system_role_developer_.yaml",
                    "Unsupported value: 'messages[0].role' does not support 'developer' with this model.",
                ),
                real_4xx(
                    "openai/chat_completions/pydantic-ai--test_openai_o1_mini_system_role_system_.yaml",
                    "Unsupported value: 'messages[0].role' does not support 'system' with this model.",
                ),
            ),
            scope=Scope(profiles=("openai", "azure"), models=("o1-mini",)),
            checked=CHECKED,
        ),
        Rule(
            "content_part_type",
            "answers 400 to a content part without `type`",
            (
                real_4xx(
                    "openai/chat_completions/crewai--test_custom_llm_within_crew.yaml",
                    "Missing required parameter: 'messages[1].content[0].type'.",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "orphan_tool_message",
            "answers 400 to a tool message that answers no call of the assistant message before it",
            (
                real_4xx(
                    "https://github.com/smarter-sh/smarter/issues/264",
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                    "with 'tool_calls'.",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "tool_call_unanswered",
            "answers 400 to a tool call without its tool message before the next other message",
            (real_4xx("https://github.com/aliasrobotics/cai/issues/111", _UNANSWERED),),
            checked=CHECKED,
        ),
        Rule(
            "pending_call",
            "answers 400 to a request ending with tool calls that have no tool messages",
            (real_4xx("https://github.com/BerriAI/litellm/issues/10083", _UNANSWERED),),
            checked=CHECKED,
        ),
        Rule(
            "assistant_content",
            "answers 400 to an assistant message with neither content nor tool_calls",
            (
                doc(
                    _REF,
                    "Assistant message content: Required unless tool_calls or function_call is specified.",
                ),
            ),
            scope=Scope(profiles=("openai", "azure")),
            contradicted_by=(
                real_2xx(
                    "groq/chat_completions/pydantic-ai--test_tool_use_failed_error_streaming--111dda9bcd.yaml",
                    "Groq: a final assistant message with content null and no tool_calls gets 200",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "tool_call_id",
            "answers 400 to an assistant tool call without an id",
            (doc(_REF, "tool_calls[].id: string, Required. The ID of the tool call."),),
            checked=CHECKED,
        ),
        Rule(
            "tool_call_id_pattern",
            "answers 400 to a tool call id outside the provider's pattern (Mistral: 9 alphanumerics)",
            (
                real_4xx(
                    "https://github.com/nearai/ironclaw/issues/1241",
                    "Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.",
                ),
            ),
            scope=Scope(flag="tool_id_pattern"),
            checked=CHECKED,
        ),
        Rule(
            "arguments_string",
            "answers 400 to tool-call arguments that are not a JSON string",
            (doc(_REF, "function.arguments: string, Required. The arguments ... in JSON format."),),
            checked=CHECKED,
        ),
        Rule(
            "temperature_range",
            "answers 400 to a temperature outside 0..2",
            (doc(_REF, "temperature: number or null. What sampling temperature to use, between 0 and 2."),),
            kind="value",
            checked=CHECKED,
        ),
        Rule(
            "reasoning_content_missing",
            "answers 400 to an assistant message with tool_calls that does not carry its reasoning_content back",
            (
                doc(
                    _DS_THINKING,
                    "For turns that do perform tool calls, the reasoning_content must be fully passed back to the "
                    "API in all subsequent requests. If your code does not correctly pass back reasoning_content, "
                    "the API will return a 400 error.",
                ),
                real_4xx(
                    "https://github.com/AstrBotDevs/AstrBot/issues/4174",
                    "Missing reasoning_content field in the assistant message at message index 6.",
                ),
            ),
            scope=Scope(
                profiles=("deepseek",),
                models=("deepseek-v4",),
                api="thinking mode; the real 4xx above is deepseek-reasoner's (2025-12): not yet in scope, the "
                "reference runtime does not send reasoning_content on tool-call turns without reasoning",
            ),
            checked=CHECKED,
        ),
        Rule(
            "reasoning_content_sent",
            "ignores the reasoning_content of an assistant turn without tool calls "
            "(deepseek-reasoner R1 answered 400 to it)",
            (
                doc(
                    _DS_THINKING,
                    "between two user messages, if the model made no tool call, the reasoning_content of the "
                    "assistant in between need not be concatenated; passed to the API in later turns it is ignored",
                ),
            ),
            scope=Scope(
                profiles=("deepseek",), api="thinking mode (R1-era 400, api-docs.deepseek.com reasoning_model)"
            ),
            contradicted_by=(
                doc(
                    _DS_R1,
                    "if the reasoning_content field is included in the sequence of input messages, the API will "
                    "return a 400 error (deepseek-reasoner R1, before the thinking-mode API)",
                ),
            ),
            effect="ignores",
            status=None,
            path="messages.*.reasoning_content",
            checked=CHECKED,
        ),
        Rule(
            "field.max_tokens",
            "answers 400 unsupported_parameter to `max_tokens` on reasoning models",
            (
                real_4xx(
                    "provider-wire-formats.md §1 (VAI fixture reasoning-model-legacy-parameter-error.json)",
                    "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                    "'max_completion_tokens' instead.",
                ),
            ),
            scope=Scope(profiles=("openai", "azure"), models=_REASONING),
            kind="field",
            field="max_tokens",
            checked=CHECKED,
        ),
        Rule(
            "field.stop",
            "answers 400 unsupported_parameter to `stop` on reasoning models",
            (
                real_4xx(
                    "openai/chat_completions/crewai--test_llm_call_when_stop_is_unsupported.yaml",
                    "Unsupported parameter: 'stop' is not supported with this model. (o1-mini)",
                ),
            ),
            scope=Scope(profiles=("openai", "azure"), models=("o1",)),
            contradicted_by=(
                real_2xx("openai/chat_completions/crewai--test_o3_mini_reasoning_effort_high.yaml", "o3-mini: 200"),
            ),
            kind="field",
            field="stop",
            checked=CHECKED,
        ),
        Rule(
            "field.max_completion_tokens",
            "answers 422 extra_forbidden to `max_completion_tokens`",
            (
                real_4xx(
                    "https://github.com/editor-code-assistant/eca/issues/231",
                    "Mistral answers 422 extra_forbidden on max_completion_tokens",
                ),
            ),
            scope=Scope(profiles=("mistral",)),
            kind="field",
            field="max_completion_tokens",
            status=422,
        ),
        *token_limit_rules(
            required=None,
            max_output=doc(
                "https://platform.openai.com/docs/models/gpt-4.1",
                "Max output tokens: 32,768 (each model page lists its maximum output tokens)",
            ),
            window=real_4xx(
                "openai/chat_completions/pydantic-ai--test_context_window_exceeded_openai_chat_--42bfae0a0a.yaml",
                "This model's maximum context length is 128000 tokens. However, your messages resulted in 150008 "
                "tokens. Please reduce the length of the messages.",
            ),
        ),
    ),
)
