"""Ollama /api/chat: the provider rule book (see `conformance.codecs.rulebook`).

Ollama renders the messages through the model's template and checks little of their order: the
pairing rules below have no source and are notes."""

from __future__ import annotations

from conformance.codecs.rulebook import CHECKED, Rule, RuleBook, doc, real_4xx
from conformance.codecs.token_limits import token_limit_rules

_REF = "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion"
_TYPES = "https://github.com/ollama/ollama/blob/main/api/types.go"

BOOK = RuleBook(
    dialect="ollama",
    rules=(
        Rule(
            "model_required",
            "answers 400 to a request without `model`",
            (real_4xx("provider-wire-formats.md §5.4 (Ollama routes)", "model is required"),),
            checked=CHECKED,
        ),
        Rule(
            "messages_required",
            "answers a request without messages by loading the model (no chat)",
            (doc(_REF, "messages: the messages of the chat, this can be used to keep a chat memory"),),
            effect="reads_as",
            status=None,
        ),
        Rule(
            "role",
            "answers 400 to an unknown role",
            (doc(_REF, "role: the role of the message, either system, user, assistant, or tool"),),
        ),
        Rule(
            "content_string",
            "answers 400 to content that is not a string (it does not unmarshal)",
            (doc(_TYPES, 'Message.Content string `json:"content"`'),),
        ),
        Rule(
            "images",
            "answers 400 to images that are not base64 strings",
            (doc(_REF, "images (optional): a list of images to include in the message (base64 encoded)"),),
        ),
        Rule("tool_after_call", "renders a tool message without a call before it (no rule known)", effect="reads_as"),
        Rule("tool_name", "renders a tool_name no call names (no rule known)", effect="reads_as"),
        Rule("tool_call_id", "renders a tool_call_id no call carries (no rule known)", effect="reads_as"),
        *token_limit_rules(
            required=None,
            max_output=doc(_REF, "options.num_predict: maximum number of tokens to predict (-1: infinite)"),
            window=real_4xx(
                "ollama/chat_completions/ruby_llm--chat_real_error_scenarios_ollama_cloud_gpt-oss_120b_handles_"
                "context_length_exceeded_errors.yaml",
                "prompt too long; exceeded max context length by 1119046 tokens",
            ),
        ),
    ),
)
