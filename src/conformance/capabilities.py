"""The provider registry: one `ProviderProfile` per provider.

This is the only module that knows provider names. Codecs, the runtime and the harness read the
flags of a profile; gateways (OpenRouter, xAI, Fireworks, Groq, DeepSeek, Mistral, …) are profiles
over the OpenAI-chat dialect, not branches.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.exceptions import UnknownProviderError

BuiltinDialect = Literal["openai_chat", "openai_responses", "anthropic", "gemini", "ollama"]
"""The wire dialects this package ships a codec for; `codecs.register_codec` adds others."""
AuthStyle = Literal["bearer", "api-key", "x-api-key", "x-goog-api-key", "query-key", "none"]


class ModelInfo(BaseModel):
    """What the runtime must know of one model (or of every model whose id starts with a prefix)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    context_window: int
    """Prompt + completion tokens the model accepts."""
    max_output: int
    """Largest completion the model produces."""
    reasoning: bool = False
    """A reasoning model: uses the profile's reasoning max-tokens field and rejects sampling knobs."""
    native_tools: bool = True
    """False: tools are described in the system prompt and calls parsed from the reply."""
    accepts_stop: bool = True
    """False: the model rejects `stop`; asking for it is an `UnsupportedFeatureError` (dropped with a
    warning only when the request sets `drop_unsupported`)."""
    accepts_temperature: bool = True
    """False: the model rejects sampling knobs (`temperature`, `top_p`); asking for one is an
    `UnsupportedFeatureError` (dropped with a warning only when the request sets `drop_unsupported`)."""
    send_reasoning_back: bool | None = None
    """Overrides the profile's `send_reasoning_back` for this model."""
    call_signature_sentinel: str | None = None
    """A model that rejects a function-call step without a `thoughtSignature` (Gemini 3): the
    value Google documents for calls that did not come from the model (history from another
    model, calls written by hand) goes on the first unsigned call of each assistant turn."""
    system_role: Literal["system", "developer"] | None = None
    """Overrides the profile's `system_role` for this model (OpenAI documents `developer` for its
    o1-and-newer reasoning models, which also accept `system`)."""
    system_message: bool = True
    """False: the model has no system role; the system prompt goes first in the first user message."""
    streaming: bool = True
    """False: the model does not stream; asking for a stream is an `UnsupportedFeatureError`."""
    tool_use: bool = True
    """False: the model takes no tools, native or prompt-based; sending tools is an error."""
    tokenizer: str | None = None
    """The model's tiktoken encoding (`o200k_base`), where it is public: exact token counts."""


class KeyShape(BaseModel):
    """What this provider's API keys look like: a fixed prefix, then `length` or more characters
    of `alphabet` (a regex character-class body). Secret scanning and redaction read these."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    prefix: str
    alphabet: str = r"A-Za-z0-9_\-"
    length: int = 20
    exact: bool = False
    """Exactly `length` characters with no letter, digit or base64 character on either side, holding
    a capital, a small letter and a digit: the shape of a key without a prefix, which only then is
    told from ids and encoded data (found by the lint, never redacted by shape)."""


class ProviderProfile(BaseModel):
    """Everything the runtime, codecs and harness know of one provider: register one to add a provider."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    name: str
    """The provider's name: the registry key, the matrix column and the `--provider` value."""
    dialect: str
    """The wire dialect: a built-in codec package (`BuiltinDialect`) or a registered codec's `dialect`."""
    base_url: str
    """API root the dialect's paths are joined to (no trailing slash)."""
    auth_style: AuthStyle
    """Where the key goes: a bearer, `x-api-key` or `x-goog-api-key` header, a `key` query parameter, or nowhere."""
    key_env: tuple[str, ...] = ()
    """Environment variables that may hold the API key, in order of preference."""
    key_shapes: tuple[KeyShape, ...] = ()
    """Shapes of this provider's keys (see `conformance.secrets`): found in cassettes by `lint`,
    redacted from error messages and logs."""
    default_model: str
    """Model used when a scenario or caller names none."""

    # request shape
    system_role: Literal["system", "developer"] = "system"
    """Role of the system prompt for dialects that send it as a message."""
    max_tokens_field: str = "max_tokens"
    """Request field that carries the completion-token limit."""
    reasoning_max_tokens_field: str | None = None
    """Field used instead of `max_tokens_field` for reasoning models (OpenAI: max_completion_tokens)."""
    max_tokens_required: bool = False
    """Every request must carry a token limit: `default_max_tokens` (clamped to the model) when none is given."""
    default_max_tokens: int = 4096
    """Token limit asked for when the caller gives none, before clamping to the model and window."""
    stream_usage_option: bool = False
    """Send `stream_options: {include_usage: true}` on streaming requests."""
    reasoning_budget_object: str | None = None
    """Chat Completions field taking `{"max_tokens": N}` for a thinking budget, `{"enabled": false}`
    for none (OpenRouter: `reasoning`). Without it a budget is not sent: Chat Completions elsewhere
    takes an effort level, not a token budget."""
    tool_choice_required: str = "required"
    """The word this provider uses for "must call a tool" (Mistral: `any`)."""
    max_completion_tokens_alias: bool = False
    """The provider documents `max_completion_tokens` and the older `max_tokens` as one completion
    limit (OpenAI, Azure OpenAI, Groq, xAI). Elsewhere the other spelling is a different request:
    a field the provider does not document (a request finding; DeepSeek, for one, "documents only
    `max_tokens` and silently ignores `max_completion_tokens`", api-docs.deepseek.com/api/create-chat-completion)."""
    developer_is_system: bool = False
    """The provider documents a `developer` message as the system prompt's role and reads the two
    alike (OpenAI: "with o1 models and newer, developer messages replace system messages"; both
    are accepted). Elsewhere `developer` is a different request (a request finding)."""
    extra_headers: dict[str, str] = Field(default_factory=dict)
    """Headers sent on every request (Anthropic: `anthropic-version`)."""
    deployment_in_path: bool = False
    """The model names a deployment in the URL: `/deployments/<model>/chat/completions` (Azure)."""
    api_version: str | None = None
    """Sent as the `api-version` query parameter (Azure's versioned data-plane API)."""
    min_max_tokens: int = 1
    """The smallest max-tokens value the API accepts (OpenAI Responses: 16)."""
    stored_responses: bool = True
    """Responses dialect: the server keeps responses, so `previous_response_id` may replace history."""

    # response shape
    reasoning_fields: tuple[str, ...] = ()
    """Message/delta fields that carry reasoning text, first present wins."""
    reasoning_fields_read: tuple[str, ...] = ()
    """Further fields read as reasoning text but never sent back: a server in front of another
    model (a proxy serving `reasoning_content`) adds them where the provider itself has none."""
    reasoning_details: bool = False
    """OpenRouter `reasoning_details` arrays."""
    think_tags: bool = False
    """Extract `<think>…</think>` from content into a thinking block."""
    output_excludes_reasoning: bool = False
    """`completion_tokens` does not count reasoning tokens (xAI): add them, as `output_tokens` is
    every generated token. xAI: every real recording has `total_tokens` = prompt + completion +
    `reasoning_tokens` (12 + 1 + 228 = 241), and "The reasoning token count is outputted in the
    reasoning_tokens field, separated from the completion_tokens" (Grok on Vertex AI,
    https://docs.cloud.google.com/vertex-ai/generative-ai/docs/partner-models/grok/capabilities/reasoning)."""
    sources_fields: tuple[str, ...] = ()
    """Top-level response fields listing the web sources of the answer, first present wins: objects
    with `url` and `title`, or URL strings (Perplexity: `search_results`, `citations`)."""

    # history rules
    send_reasoning_back: bool = True
    """Send earlier reasoning back in history (DeepSeek R1 rejected it; see the rule book)."""
    tool_id_pattern: str | None = None
    """Regex that tool-call ids must fully match; others are remapped consistently."""
    tool_id_length: int | None = None
    """Length of the ids generated to replace ones that do not match `tool_id_pattern` (Mistral: 9)."""
    schema_strip_keywords: tuple[str, ...] = ()
    """JSON-schema keywords removed from tool parameters before sending."""
    strict_alternation: bool = False
    """The encoder merges same-role turns into one (Gemini: gemini-pro rejected them; 2.5 and 3 read
    them as one turn, the rule book's `alternation`)."""
    alternating_roles: bool = False
    """Same-role neighbours are not sent as separate turns: repair merges text-only neighbours and
    bridges the others with a placeholder turn (tool results count as the user side)."""
    prefill_flag: str | None = None
    """Message field set to true on a final assistant message so the server continues its text
    (Mistral: `prefix`; without it Mistral rejects a conversation that ends with the assistant)."""
    prefill_trailing_whitespace: bool = True
    """A transcript may end with an assistant message whose text ends with whitespace (Anthropic
    rejects such a prefill)."""
    thinking_requires_signature: bool = False
    """Thinking blocks sent back in history must carry a signature; unsigned thinking is treated like
    thinking from another provider (dropped, or converted to text on request)."""
    schema_inline_refs: bool = False
    """Tool schemas must be self-contained: `$ref` is inlined and `$defs`/`definitions` removed."""
    schema_const_to_enum: bool = False
    """`const` is not accepted: it becomes a single-value string `enum`."""
    schema_nullable_style: Literal["type_array", "nullable"] = "type_array"
    """How a nullable type is written: JSON-schema `type: [T, "null"]`, or OpenAPI `nullable: true`."""
    schema_enum_as_strings: bool = False
    """`enum` values must be strings (the schema type becomes `string`)."""
    schema_string_formats: tuple[str, ...] | None = None
    """String `format` values accepted; others are dropped with a warning. None: any format."""
    schema_flatten_combinators: bool = False
    """`oneOf` is sent as `anyOf` and `allOf` is merged into one schema."""
    payload_too_large_statuses: tuple[int, ...] = (413,)
    """HTTP statuses that mean the request was too large when the error reads as an invalid request."""
    failed_generation_messages: tuple[str, ...] = ()
    """Texts of a 400 that report the model's failed generation rather than a bad request (Cerebras:
    a generated call to a tool that is not in `tools`): the same request may succeed when sent
    again, so the turn loop retries it as a server error (with back-off) instead of giving up."""

    matrix_column: bool = True
    """Gets a column in the bundled matrix for every scenario (the generic OpenAI-compatible profile does not)."""
    listed_column: bool = False
    """Gets a column in the default matrix for the scenarios that name it under `providers`, and for
    no other (the generic OpenAI-compatible profile: the rows of a Gemini-compatible proxy are its own)."""

    models: dict[str, ModelInfo] = Field(default_factory=dict)
    """Known models by id prefix; the longest matching prefix wins."""
    fallback_model: ModelInfo = ModelInfo(context_window=128_000, max_output=4096)
    """What is assumed of a model no prefix in `models` matches."""

    def model_info(self, model: str | None) -> ModelInfo:
        """What is known of `model` (None: the default model): its longest matching prefix, else the fallback."""
        model = model or self.default_model
        best = ""
        for prefix in self.models:
            if model.startswith(prefix) and len(prefix) > len(best):
                best = prefix
        return self.models[best] if best else self.fallback_model

    def endpoint(self, path: str, model: str) -> str:
        """The request path for `model`: a deployment path and the `api-version` where the profile
        asks for them."""
        if self.deployment_in_path:
            path = f"/deployments/{model}{path}"
        if self.api_version:
            path += ("&" if "?" in path else "?") + f"api-version={self.api_version}"
        return path

    def with_base_url(self, base_url: str) -> ProviderProfile:
        """This profile pointed at another server (a proxy, an emulator, a local deployment)."""
        return self.model_copy(update={"base_url": base_url.rstrip("/")})


_OPENAI_REASONING = ModelInfo(
    context_window=200_000,
    max_output=100_000,
    reasoning=True,
    accepts_stop=False,
    accepts_temperature=False,
    system_role="developer",
    tokenizer="o200k_base",
)

_RESPONSES_FALLBACK = ModelInfo(context_window=128_000, max_output=16_384, accepts_stop=False)
"""The Responses API has no `stop` parameter."""
_OPENAI_MODELS: dict[str, ModelInfo] = {
    # gpt-4: an 8,192-token window that holds the prompt and the output, and an output limit as large
    "gpt-4": ModelInfo(context_window=8_192, max_output=8_192, tokenizer="cl100k_base"),
    "gpt-4-turbo": ModelInfo(context_window=128_000, max_output=4_096, tokenizer="cl100k_base"),
    "gpt-4.1": ModelInfo(context_window=1_047_576, max_output=32_768, tokenizer="o200k_base"),
    "gpt-4o": ModelInfo(context_window=128_000, max_output=16_384, tokenizer="o200k_base"),
    "gpt-5": _OPENAI_REASONING.model_copy(update={"context_window": 400_000, "max_output": 128_000}),
    "o1": _OPENAI_REASONING,
    "o1-mini": _OPENAI_REASONING.model_copy(
        update={"context_window": 128_000, "max_output": 65_536, "system_message": False, "tool_use": False}
    ),
    "o3": _OPENAI_REASONING,
    "o4": _OPENAI_REASONING,
}
_RESPONSES_MODELS: dict[str, ModelInfo] = {
    prefix: info.model_copy(update={"accepts_stop": False}) for prefix, info in _OPENAI_MODELS.items()
}
_AZURE_NO_STREAM: dict[str, ModelInfo] = {
    # Azure OpenAI reasoning models, "API & feature support" (Microsoft Learn): no streaming for o1,
    # o3-pro and gpt-5-pro; o3-pro and gpt-5-pro are served on the Responses API only
    "o1": _RESPONSES_MODELS["o1"].model_copy(update={"streaming": False}),
    "o3-pro": _RESPONSES_MODELS["o3"].model_copy(update={"streaming": False}),
    "gpt-5-pro": _RESPONSES_MODELS["gpt-5"].model_copy(update={"streaming": False}),
}

_GEMINI_STRIP: tuple[str, ...] = (
    "$schema",
    "$id",
    "$comment",
    "default",
    "examples",
    "title",
    "additionalProperties",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "propertyNames",
    "uniqueItems",
    "multipleOf",
    "patternProperties",
    "unevaluatedProperties",
    "dependentRequired",
    "dependentSchemas",
    "contentEncoding",
    "contentMediaType",
    "readOnly",
    "writeOnly",
    "deprecated",
)
"""JSON-schema keywords the Gemini dialect (Gemini API and Vertex AI) does not accept."""
_GEMINI_MODELS: dict[str, ModelInfo] = {
    "gemini-2.5": ModelInfo(context_window=1_048_576, max_output=65_536),
    "gemini-3": ModelInfo(
        context_window=1_048_576, max_output=65_536, call_signature_sentinel="skip_thought_signature_validator"
    ),
    "gemini-2.0": ModelInfo(context_window=1_048_576, max_output=8_192),
    "gemma-3": ModelInfo(context_window=131_072, max_output=8_192, system_message=False),
}

_PERPLEXITY_MODELS: dict[str, ModelInfo] = {
    "sonar": ModelInfo(context_window=128_000, max_output=8_000),
    "sonar-pro": ModelInfo(context_window=200_000, max_output=8_000),
    "sonar-reasoning": ModelInfo(context_window=128_000, max_output=8_000),
    "sonar-deep-research": ModelInfo(context_window=128_000, max_output=8_000),
}
"""Perplexity's Sonar models (model cards: sonar-pro 200k with 8k of output, the others 128k; no
other output limit is documented, so 8k is assumed). `sonar-reasoning` covers `sonar-reasoning-pro`."""

_PROFILES: dict[str, ProviderProfile] = {}


def register(profile: ProviderProfile) -> ProviderProfile:
    """Add or replace a profile (e.g. a local OpenAI-compatible server)."""
    _PROFILES[profile.name] = profile
    return profile


_GEMINI = ProviderProfile(
    name="gemini",
    dialect="gemini",
    base_url="https://generativelanguage.googleapis.com/v1beta",
    auth_style="x-goog-api-key",
    key_env=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    key_shapes=(KeyShape(label="Google API key", prefix="AIza", length=35),),
    default_model="gemini-2.5-flash",
    max_tokens_field="maxOutputTokens",
    strict_alternation=True,
    alternating_roles=True,
    schema_inline_refs=True,
    schema_const_to_enum=True,
    schema_nullable_style="nullable",
    schema_enum_as_strings=True,
    schema_string_formats=("enum", "date-time"),
    schema_flatten_combinators=True,
    schema_strip_keywords=_GEMINI_STRIP,
    models=_GEMINI_MODELS,
    fallback_model=ModelInfo(context_window=1_048_576, max_output=8_192),
)

_OPENAI_RESPONSES = ProviderProfile(
    name="openai_responses",
    dialect="openai_responses",
    base_url="https://api.openai.com/v1",
    auth_style="bearer",
    key_env=("OPENAI_API_KEY",),
    default_model="gpt-4.1-mini",
    max_tokens_field="max_output_tokens",
    min_max_tokens=16,
    thinking_requires_signature=True,
    models=_RESPONSES_MODELS,
    fallback_model=_RESPONSES_FALLBACK,
    developer_is_system=True,
)

for _p in (
    ProviderProfile(
        name="openai",
        dialect="openai_chat",
        max_completion_tokens_alias=True,
        developer_is_system=True,
        base_url="https://api.openai.com/v1",
        auth_style="bearer",
        key_env=("OPENAI_API_KEY",),
        key_shapes=(
            KeyShape(label="OpenAI project key", prefix="sk-proj-"),
            KeyShape(label="OpenAI service account key", prefix="sk-svcacct-"),
            KeyShape(label="OpenAI admin key", prefix="sk-admin-"),
            KeyShape(label="OpenAI-style API key", prefix="sk-", alphabet="A-Za-z0-9"),
        ),
        default_model="gpt-4.1-mini",
        max_tokens_field="max_completion_tokens",
        reasoning_max_tokens_field="max_completion_tokens",
        reasoning_fields_read=("reasoning_content", "reasoning"),
        stream_usage_option=True,
        schema_strip_keywords=(),
        models=_OPENAI_MODELS,
    ),
    ProviderProfile(
        name="anthropic",
        dialect="anthropic",
        base_url="https://api.anthropic.com/v1",
        auth_style="x-api-key",
        key_env=("ANTHROPIC_API_KEY",),
        key_shapes=(KeyShape(label="Anthropic API key", prefix="sk-ant-"),),
        default_model="claude-sonnet-4-5",
        max_tokens_required=True,
        default_max_tokens=4096,
        extra_headers={"anthropic-version": "2023-06-01"},
        tool_id_pattern=r"[a-zA-Z0-9_-]{1,64}",
        schema_strip_keywords=("default", "examples", "additionalProperties"),
        alternating_roles=True,
        thinking_requires_signature=True,
        prefill_trailing_whitespace=False,
        models={
            "claude-sonnet-4": ModelInfo(context_window=200_000, max_output=64_000),
            "claude-haiku-4": ModelInfo(context_window=200_000, max_output=64_000),
            "claude-opus-4": ModelInfo(context_window=200_000, max_output=32_000),
            "claude-3-5-haiku": ModelInfo(context_window=200_000, max_output=8_192),
        },
        fallback_model=ModelInfo(context_window=200_000, max_output=8_192),
    ),
    _GEMINI,
    ProviderProfile(
        name="ollama",
        dialect="ollama",
        base_url="http://localhost:11434",
        auth_style="none",
        default_model="llama3.2",
        max_tokens_field="num_predict",
        reasoning_fields=("thinking",),
        models={
            "llama3.2": ModelInfo(context_window=131_072, max_output=8_192),
            "qwen3": ModelInfo(context_window=40_960, max_output=8_192),
            "gemma3": ModelInfo(context_window=131_072, max_output=8_192, native_tools=False),
            "phi3": ModelInfo(context_window=131_072, max_output=4_096, native_tools=False),
        },
        fallback_model=ModelInfo(context_window=8_192, max_output=4_096),
    ),
    ProviderProfile(
        name="openrouter",
        dialect="openai_chat",
        base_url="https://openrouter.ai/api/v1",
        auth_style="bearer",
        key_env=("OPENROUTER_API_KEY",),
        key_shapes=(KeyShape(label="OpenRouter API key", prefix="sk-or-v1-", alphabet="A-Za-z0-9"),),
        default_model="anthropic/claude-sonnet-4.5",
        reasoning_fields=("reasoning", "reasoning_content"),
        reasoning_details=True,
        reasoning_budget_object="reasoning",
        payload_too_large_statuses=(413,),
    ),
    ProviderProfile(
        name="xai",
        dialect="openai_chat",
        max_completion_tokens_alias=True,
        base_url="https://api.x.ai/v1",
        auth_style="bearer",
        key_env=("XAI_API_KEY",),
        key_shapes=(KeyShape(label="xAI API key", prefix="xai-", alphabet="A-Za-z0-9"),),
        default_model="grok-3-mini",
        reasoning_fields=("reasoning_content",),
        output_excludes_reasoning=True,
        schema_strip_keywords=("additionalProperties",),
        models={
            "grok-3-mini": ModelInfo(context_window=131_072, max_output=16_384, reasoning=True, accepts_stop=False),
            "grok-4": ModelInfo(context_window=256_000, max_output=32_768, reasoning=True, accepts_stop=False),
        },
    ),
    ProviderProfile(
        name="fireworks",
        dialect="openai_chat",
        base_url="https://api.fireworks.ai/inference/v1",
        auth_style="bearer",
        key_env=("FIREWORKS_API_KEY",),
        key_shapes=(KeyShape(label="Fireworks API key", prefix="fw_", alphabet="A-Za-z0-9"),),
        default_model="accounts/fireworks/models/deepseek-r1",
        reasoning_fields=("reasoning_content",),
        think_tags=True,
    ),
    ProviderProfile(
        name="groq",
        dialect="openai_chat",
        max_completion_tokens_alias=True,
        base_url="https://api.groq.com/openai/v1",
        auth_style="bearer",
        key_env=("GROQ_API_KEY",),
        key_shapes=(KeyShape(label="Groq API key", prefix="gsk_", alphabet="A-Za-z0-9"),),
        default_model="llama-3.3-70b-versatile",
        models={
            # Groq's model table: a 131,072-token window, and as many completion tokens
            "llama-3.1-8b-instant": ModelInfo(context_window=131_072, max_output=131_072),
        },
        reasoning_fields=("reasoning",),
        think_tags=True,
    ),
    ProviderProfile(
        name="deepseek",
        dialect="openai_chat",
        base_url="https://api.deepseek.com",
        auth_style="bearer",
        key_env=("DEEPSEEK_API_KEY",),
        key_shapes=(KeyShape(label="OpenAI-style API key", prefix="sk-", alphabet="A-Za-z0-9"),),
        default_model="deepseek-reasoner",
        reasoning_fields=("reasoning_content",),
        send_reasoning_back=False,
        models={
            "deepseek-reasoner": ModelInfo(context_window=131_072, max_output=65_536, reasoning=True),
            "deepseek-chat": ModelInfo(context_window=131_072, max_output=8_192),
            # thinking mode takes reasoning_content back on tool-call turns (api-docs.deepseek.com/guides/thinking_mode)
            "deepseek-v4": ModelInfo(
                context_window=131_072, max_output=65_536, reasoning=True, send_reasoning_back=True
            ),
        },
    ),
    ProviderProfile(
        name="mistral",
        dialect="openai_chat",
        base_url="https://api.mistral.ai/v1",
        auth_style="bearer",
        key_env=("MISTRAL_API_KEY",),
        # 32 letters and digits, no prefix (the Mistral rule of the betterleaks/gitleaks scanners;
        # detect_llm_api_keys: ^[a-zA-Z0-9]{32}$)
        key_shapes=(KeyShape(label="Mistral API key", prefix="", alphabet="A-Za-z0-9", length=32, exact=True),),
        default_model="mistral-large-latest",
        tool_choice_required="any",
        prefill_flag="prefix",
        tool_id_pattern=r"[a-zA-Z0-9]{9}",
        tool_id_length=9,
    ),
    _OPENAI_RESPONSES,
    _OPENAI_RESPONSES.model_copy(
        update={
            "name": "azure_responses",
            "base_url": "https://my-resource.openai.azure.com/openai/v1",
            "auth_style": "api-key",
            "key_env": ("AZURE_OPENAI_API_KEY",),
            "models": _RESPONSES_MODELS | _AZURE_NO_STREAM,
        }
    ),
    ProviderProfile(
        name="xai_responses",
        dialect="openai_responses",
        base_url="https://api.x.ai/v1",
        auth_style="bearer",
        key_env=("XAI_API_KEY",),
        default_model="grok-4-1-fast-non-reasoning",
        max_tokens_field="max_output_tokens",
        thinking_requires_signature=True,
        schema_strip_keywords=("additionalProperties",),
        models={
            "grok": ModelInfo(context_window=256_000, max_output=32_768, reasoning=True, accepts_stop=False),
            "grok-4-1-fast-non-reasoning": ModelInfo(context_window=2_000_000, max_output=30_000, accepts_stop=False),
        },
        fallback_model=_RESPONSES_FALLBACK,
    ),
    ProviderProfile(
        name="openrouter_responses",
        dialect="openai_responses",
        base_url="https://openrouter.ai/api/v1",
        auth_style="bearer",
        key_env=("OPENROUTER_API_KEY",),
        default_model="openai/gpt-4.1-mini",
        max_tokens_field="max_output_tokens",
        min_max_tokens=16,
        stored_responses=False,
        thinking_requires_signature=True,
        fallback_model=_RESPONSES_FALLBACK,
    ),
    ProviderProfile(
        name="azure",
        dialect="openai_chat",
        max_completion_tokens_alias=True,
        developer_is_system=True,
        base_url="https://my-resource.openai.azure.com/openai",
        auth_style="api-key",
        key_env=("AZURE_OPENAI_API_KEY",),
        default_model="gpt-4.1-mini",
        deployment_in_path=True,
        api_version="2024-10-21",
        max_tokens_field="max_completion_tokens",
        reasoning_max_tokens_field="max_completion_tokens",
        stream_usage_option=True,
        models=_RESPONSES_MODELS
        | {k: v.model_copy(update={"accepts_stop": True}) for k, v in _RESPONSES_MODELS.items() if not v.reasoning}
        | {"o1": _AZURE_NO_STREAM["o1"]},
    ),
    _GEMINI.model_copy(  # the Gemini dialect on Vertex AI's own endpoints and auth
        update={
            "name": "vertex",
            "base_url": "https://aiplatform.googleapis.com/v1/projects/my-project/locations/global/publishers/google",
            "auth_style": "bearer",
            "key_env": ("VERTEX_AI_ACCESS_TOKEN",),
            "key_shapes": (),
        }
    ),
    ProviderProfile(
        name="together",
        dialect="openai_chat",
        base_url="https://api.together.xyz/v1",
        auth_style="bearer",
        key_env=("TOGETHER_API_KEY",),
        default_model="meta-llama/Llama-3.3-70B-Instruct-Turbo",
        reasoning_fields=("reasoning",),
        think_tags=True,
        send_reasoning_back=False,
    ),
    ProviderProfile(
        name="cerebras",
        dialect="openai_chat",
        base_url="https://api.cerebras.ai/v1",
        auth_style="bearer",
        key_env=("CEREBRAS_API_KEY",),
        default_model="llama-3.3-70b",
        max_tokens_field="max_completion_tokens",
        reasoning_fields=("reasoning",),
        think_tags=True,
        send_reasoning_back=False,
        # Qwen models on Cerebras: "Failed to generate tool call. Tool is not present in the tools list."
        failed_generation_messages=("Tool is not present in the tools list",),
    ),
    ProviderProfile(
        name="huggingface",
        dialect="openai_chat",
        base_url="https://router.huggingface.co/v1",
        auth_style="bearer",
        key_env=("HF_TOKEN",),
        default_model="meta-llama/Llama-3.1-8B-Instruct",
        reasoning_fields=("reasoning_content", "reasoning"),
        think_tags=True,
        send_reasoning_back=False,
    ),
    ProviderProfile(  # Perplexity's Sonar API: Chat Completions with web search and citations
        name="perplexity",
        dialect="openai_chat",
        base_url="https://api.perplexity.ai",  # docs.perplexity.ai/guides/chat-completions-guide
        auth_style="bearer",
        key_env=("PERPLEXITY_API_KEY",),
        key_shapes=(KeyShape(label="Perplexity API key", prefix="pplx-", alphabet="A-Za-z0-9"),),
        default_model="sonar-pro",  # the model of Perplexity's OpenAI-compatibility examples
        think_tags=True,  # sonar-reasoning-pro writes a <think> section first (docs.perplexity.ai/faq/faq)
        sources_fields=("search_results", "citations"),  # docs.perplexity.ai/api-reference/chat-completions-post
        models=_PERPLEXITY_MODELS,
        fallback_model=ModelInfo(context_window=128_000, max_output=8_000),
    ),
    ProviderProfile(
        name="openai-compatible",
        dialect="openai_chat",
        base_url="http://localhost:8000/v1",
        auth_style="bearer",
        key_env=("OPENAI_COMPATIBLE_API_KEY",),
        default_model="local-model",
        matrix_column=False,
        listed_column=True,
        reasoning_fields=("reasoning_content", "reasoning"),
        reasoning_details=True,  # servers relaying OpenRouter's shape (Snowflake Cortex) send them
        think_tags=True,
    ),
):
    register(_p)


def get_profile(name: str) -> ProviderProfile:
    """The registered profile called `name`; `UnknownProviderError` (listing the known ones) otherwise."""
    try:
        return _PROFILES[name]
    except KeyError:
        raise UnknownProviderError(name, provider_names()) from None


def provider_names() -> list[str]:
    """Registered providers in matrix order."""
    return list(_PROFILES)


def registered_profiles() -> tuple[ProviderProfile, ...]:
    """Every registered profile in matrix order, as one tuple: a reader that derives data from the
    registry keeps the tuple it derived from and compares it (item by item, by identity first) to know
    whether a profile was registered, replaced or removed since."""
    return tuple(_PROFILES.values())


def matrix_providers() -> list[str]:
    """Providers that get a column in the bundled matrix (the generic profile has none)."""
    return [name for name, profile in _PROFILES.items() if profile.matrix_column]


def default_columns() -> list[str]:
    """The columns a run without `--provider` fills: the matrix's, and those only the scenarios that
    name them fill (`ProviderProfile.listed_column`)."""
    return [name for name, profile in _PROFILES.items() if profile.matrix_column or profile.listed_column]


def listed_only(name: str) -> bool:
    """Whether `name`'s column holds only the scenarios that name it (an unknown name: no)."""
    profile = _PROFILES.get(name)
    return profile is not None and profile.listed_column and not profile.matrix_column


__all__ = [
    "AuthStyle",
    "BuiltinDialect",
    "KeyShape",
    "ModelInfo",
    "ProviderProfile",
    "default_columns",
    "get_profile",
    "listed_only",
    "matrix_providers",
    "provider_names",
    "register",
]
