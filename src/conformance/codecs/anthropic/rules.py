"""Anthropic Messages: the provider rule book (see `conformance.codecs.rulebook`)."""

from __future__ import annotations

from conformance.codecs.rulebook import CHECKED, Rule, RuleBook, Scope, doc, real_2xx, real_4xx
from conformance.codecs.token_limits import token_limit_rules

SYSTEM_MESSAGE_BLOCKS = frozenset({"tool_addition"})
"""Blocks a `system` message in `messages` may hold without breaking `system_message` (real 2xx below)."""

_REF = "https://docs.anthropic.com/en/api/messages"
_TOOLS = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks"
_THINKING = "https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks"
_UNANSWERED = (
    "messages.N: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_... Each "
    "`tool_use` block must have a corresponding `tool_result` block in the next message."
)

BOOK = RuleBook(
    dialect="anthropic",
    rules=(
        Rule(
            "model_required",
            "answers 400 to a request without `model`",
            (doc(_REF, "model: string, required"),),
            checked=CHECKED,
        ),
        Rule(
            "messages_required",
            "answers 400 to a request without `messages`",
            (doc(_REF, "messages: array of MessageParam, required"),),
            checked=CHECKED,
        ),
        Rule(
            "max_tokens_required",
            "answers 400 to a request without `max_tokens` (an integer >= 1)",
            (doc(_REF, "max_tokens: number, required. The maximum number of tokens to generate before stopping."),),
            checked=CHECKED,
        ),
        Rule(
            "role",
            "answers 400 to a message role other than user or assistant",
            (doc(_REF, 'role: "user" or "assistant"'),),
            checked=CHECKED,
        ),
        Rule(
            "system_message",
            'answers 400 to a `system` message in `messages` ("Unexpected role \\"system\\"")',
            (
                real_4xx(
                    "https://github.com/ianarawjo/ChainForge/issues/271",
                    'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
                    'not "system" as an input message role.',
                ),
                real_4xx(
                    "https://github.com/anthropics/claude-agent-sdk-typescript/issues/350",
                    "claude-haiku-4-5, 2026-06: the same 400",
                ),
            ),
            scope=Scope(api="except a system message of `tool_addition` blocks (beta, `?beta=true`)"),
            contradicted_by=(
                real_2xx(
                    "anthropic/messages/pydantic-ai--test_tool_availability_portability_matrix_R4-T1-tool-addition_.yaml",
                    "a `system` message holding only `tool_addition` blocks, sent to /v1/messages?beta=true: 200",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "first_user",
            "answered 400 when the first message was not a user message",
            (
                real_4xx(
                    "https://github.com/lobehub/lobehub/issues/1601",
                    'messages: first message must use the "user" role',
                ),
            ),
            checked="2024",
        ),
        Rule(
            "tool_use_unanswered",
            "answers 400 to a tool_use without a tool_result in the next user turn",
            (real_4xx("provider-wire-formats.md §3.2 (observed)", _UNANSWERED),),
            checked=CHECKED,
        ),
        Rule(
            "pending_call",
            "answers 400 to a request whose last assistant turn holds a tool_use and nothing follows it",
            (real_4xx("provider-wire-formats.md §3.2 (observed)", _UNANSWERED),),
            checked=CHECKED,
        ),
        Rule(
            "tool_result_first",
            "answers 400 when text comes before the tool_result blocks of a user turn",
            (
                doc(
                    _TOOLS,
                    "In the user message containing tool results, the tool_result blocks must come FIRST in the "
                    "content array. Any text must come AFTER all tool results.",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "orphan_tool_result",
            "answers 400 to a tool_result whose tool_use is not in the assistant turn right before it",
            (
                real_4xx(
                    "https://github.com/anthropics/claude-code/issues/5060",
                    "unexpected `tool_use_id` found in `tool_result` blocks: toolu_... Each `tool_result` block "
                    "must have a corresponding `tool_use` block in the previous message.",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "tool_use_id",
            "answers 400 to a tool_use id outside ^[a-zA-Z0-9_-]+$",
            (
                real_4xx(
                    "provider-wire-formats.md §3.2 (observed)",
                    "messages.N.content.M.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "input_object",
            "answers 400 to a tool_use whose input is not an object",
            (doc(_REF, "ToolUseBlockParam.input: Record<string, unknown>, required"),),
            checked=CHECKED,
        ),
        Rule(
            "empty_text",
            "answers 400 to an empty text block",
            (
                real_4xx(
                    "https://github.com/mckaywrigley/chatbot-ui/issues/1656",
                    "messages: text content blocks must be non-empty",
                ),
            ),
            checked=CHECKED,
        ),
        Rule(
            "thinking_signature",
            "answers 400 to a thinking block sent back without its signature",
            (
                doc(
                    _THINKING,
                    "you must pass thinking blocks back to the API ... the complete unmodified block back to the API",
                ),
            ),
            checked=CHECKED,
        ),
        *(
            Rule(
                f"schema_keyword.{kw}",
                f"(no source) `{kw}` in a tool's input_schema, claimed rejected \"in some setups\"; the runtime's "
                "profile strips it (`schema_strip_keywords`), a runtime that keeps it is not failed for it",
                scope=Scope(profiles=("anthropic",)),
                kind="schema",
                path=f"tools.*.input_schema.**.{kw}",
            )
            for kw in ("additionalProperties", "default", "examples")
        ),
        *token_limit_rules(
            required=doc(_REF, "max_tokens: number, required"),
            max_output=doc(
                "https://docs.anthropic.com/en/docs/about-claude/models/overview#model-comparison-table",
                "Max output: 64000 tokens (Claude Sonnet 4.5, Haiku 4.5); 32000 tokens (Claude Opus 4.1)",
            ),
            window=real_4xx(
                "anthropic/messages/ruby_llm--chat_real_error_scenarios_anthropic_claude-haiku-4-5_handles_context_"
                "length_exceeded_errors.yaml",
                "prompt is too long: 3333404 tokens > 200000 maximum",
            ),
        ),
    ),
)
