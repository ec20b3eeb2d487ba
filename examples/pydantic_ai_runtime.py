"""`pydantic-ai`'s model classes as a runtime under test (OpenAI-chat providers, Anthropic, Gemini).

pydantic-ai has its own message model, request building, stream handling, error categories and
`ModelSettings`; it sends through the providers' SDKs, whose HTTP client it lets you inject.

- `encode`: the conversation as pydantic-ai messages and tool definitions, sent through the model
  class; the request body it puts on the wire is the answer (caught by a transport that answers
  nothing else).
- `decode`: a request through the model class, answered with the recorded response; its
  `ModelResponse` (or the `ModelAPIError` category it raises, with what the stream produced
  before it) is mapped to the normalized form.
- `turn`: one request of pydantic-ai's own making against the harness's transport, with
  `ModelSettings['max_retries']` from the scenario's policy; the SDK's retry loop underneath
  waits on the harness clock.

pydantic-ai has no transcript repair or loader of its own: those rows are `skipped`.

    conformance run --runtime examples.pydantic_ai_runtime:make --provider openai --provider anthropic --provider gemini
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable
from typing import Any

import anthropic._base_client as anthropic_base_client
import google.genai._api_client as genai_api_client
import groq._base_client as groq_base_client
import httpx
import httpx2
import openai._base_client as openai_base_client
import pydantic_ai
from mistralai.client import Mistral
from openai import AsyncOpenAI
from pydantic_ai import exceptions as errors
from pydantic_ai import messages as pm
from pydantic_ai.direct import model_request, model_request_stream
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.models.groq import GroqModel
from pydantic_ai.models.mistral import MistralModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.models.openrouter import OpenRouterModel
from pydantic_ai.native_tools import AbstractNativeTool, WebSearchTool
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.deepseek import DeepSeekProvider
from pydantic_ai.providers.fireworks import FireworksProvider
from pydantic_ai.providers.google import GoogleProvider
from pydantic_ai.providers.groq import GroqProvider
from pydantic_ai.providers.mistral import MistralProvider
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.providers.openrouter import OpenRouterProvider
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition

from conformance.adapters import (
    Httpx2Transport,
    Reproduction,
    conversation_parts,
    failed,
    recorded_response,
    reraise_replay_mismatch,
    sdk_sleeps_on,
    text_of,
)
from conformance.capabilities import get_profile
from conformance.exceptions import InputError
from conformance.runtime.protocol import Declaration, TurnRequest
from examples._offers import NOT_OFFERED, dialect_providers

_STOP = {"stop": "stop", "length": "length", "content_filter": "content_filter", "tool_call": "tool_use"}

_ERRORS: list[tuple[type[errors.ModelAPIError], str]] = [
    (errors.ModelContextWindowExceededError, "context_overflow"),
    (errors.ModelAuthenticationError, "auth"),
    (errors.ModelNotFoundError, "not_found"),
    (errors.ModelRequestRejectedError, "invalid_request"),
    (errors.ModelRateLimitError, "rate_limited"),
    (errors.ModelQuotaExceededError, "rate_limited"),
    (errors.ModelOverloadedError, "overloaded"),
    (errors.ModelUnavailableError, "overloaded"),
    (errors.ModelServerError, "server"),
    (errors.ModelTimeoutError, "timeout"),
    (errors.ModelConnectionError, "stream_interrupted"),
]
"""pydantic-ai's error categories → normalized error kinds (first match; subclasses listed first)."""


Builder = Callable[[str, str, str, Any], Model]
"""(model name, base URL, API key, the harness's `httpx` transport) → the model."""


def _httpx2(transport: Any) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=Httpx2Transport(transport), timeout=600.0)


def _openai_chat(name: str, base_url: str, key: str, transport: Any) -> Model:
    provider = OpenAIProvider(base_url=base_url, api_key=key, http_client=_httpx2(transport))
    return OpenAIChatModel(name, provider=provider)


def _openai_sdk_host(provider: type[DeepSeekProvider | FireworksProvider]) -> Builder:
    """A host pydantic-ai has a provider class for over the OpenAI SDK (its model profile: which
    fields that host takes), served by `OpenAIChatModel`, as its docs show."""

    def build(name: str, base_url: str, key: str, transport: Any) -> Model:
        client = AsyncOpenAI(base_url=base_url, api_key=key, http_client=_httpx2(transport))
        return OpenAIChatModel(name, provider=provider(openai_client=client))

    return build


def _openrouter(name: str, base_url: str, key: str, transport: Any) -> Model:
    client = AsyncOpenAI(base_url=base_url, api_key=key, http_client=_httpx2(transport))
    return OpenRouterModel(name, provider=OpenRouterProvider(openai_client=client))


@functools.cache
def _mistral_sync_client() -> httpx2.Client:
    """The Mistral SDK's default sync client (`httpx.Client(follow_redirects=True)`, which pydantic-ai
    never sends through), built once: the SDK would build one per `Mistral`, a TLS context each."""
    return httpx2.Client(follow_redirects=True)


def _mistral(name: str, base_url: str, key: str, transport: Any) -> Model:
    # the Mistral SDK's paths start with /v1; its client as pydantic-ai's docs let you pass one
    # (`MistralProvider(mistral_client=…)`), with the HTTP clients the SDK's docs let you pass
    client = Mistral(
        api_key=key,
        server_url=base_url.removesuffix("/v1"),
        client=_mistral_sync_client(),
        async_client=_httpx2(transport),
    )
    return MistralModel(name, provider=MistralProvider(mistral_client=client))


def _groq(name: str, base_url: str, key: str, transport: Any) -> Model:
    # the Groq SDK is built on `httpx` and its paths start with /openai/v1
    http = httpx.AsyncClient(transport=transport, timeout=600.0)
    provider = GroqProvider(api_key=key, base_url=base_url.removesuffix("/openai/v1"), http_client=http)
    return GroqModel(name, provider=provider)


def _anthropic(name: str, base_url: str, key: str, transport: Any) -> Model:
    provider = AnthropicProvider(api_key=key, base_url=base_url.removesuffix("/v1"), http_client=_httpx2(transport))
    return AnthropicModel(name, provider=provider)


def _google(name: str, base_url: str, key: str, transport: Any) -> Model:
    provider = GoogleProvider(api_key=key, base_url=base_url.removesuffix("/v1beta"), http_client=_httpx2(transport))
    return GoogleModel(name, provider=provider)


MODEL_CLASSES: dict[str, Builder] = {
    "openrouter": _openrouter,
    "mistral": _mistral,
    "groq": _groq,
    "deepseek": _openai_sdk_host(DeepSeekProvider),
    "fireworks": _openai_sdk_host(FireworksProvider),
}
"""pydantic-ai's own class for a provider column, where it has one (`OpenRouterModel`, `MistralModel`,
`GroqModel`; DeepSeek and Fireworks: `OpenAIChatModel` with their provider classes). xAI's own class,
`XaiModel`, speaks xAI's gRPC API through `xai-sdk`, not the HTTP Chat Completions API the xAI column
records: that column, OpenAI and any other OpenAI-compatible host go through `OpenAIChatModel` with
`OpenAIProvider(base_url=…)`, as pydantic-ai's docs show for an OpenAI-compatible server."""

DIALECT_CLASSES: dict[str, Builder] = {"openai_chat": _openai_chat, "anthropic": _anthropic, "gemini": _google}


def _model(provider: str, base_url: str, key: str, transport: Any, model: str | None = None) -> Model:
    """pydantic-ai's model class for `provider` and `model` (the profile's default when None),
    sending through `transport` (an httpx one)."""
    profile = get_profile(provider)
    build = MODEL_CLASSES.get(provider) or DIALECT_CLASSES.get(profile.dialect)
    if build is None:
        raise InputError(
            f"this adapter drives pydantic-ai for OpenAI-chat, Anthropic and Gemini, not {provider}", where="--provider"
        )
    return build(model or profile.default_model, base_url, key, transport)


def _history_part(block: dict[str, Any], system: str) -> Any:
    """An assistant block as the part pydantic-ai would have made of it, with what it keeps beside the
    text (signatures, Gemini's thought signature in `provider_details`) and the `provider_name` it
    checks before sending signed data back; None for a block it has no part for."""
    details = {"thought_signature": block["signature"]} if block.get("signature") else None
    kind = block["type"]
    if kind == "text":
        return pm.TextPart(block["text"], provider_name=system, provider_details=details)
    if kind == "thinking" and system.startswith("google"):
        # GoogleModel keeps a part's own thought signature in `provider_details` (its `signature` is
        # the one of the part after it)
        return pm.ThinkingPart(block["thinking"], provider_name=system, provider_details=details)
    if kind == "thinking":
        return pm.ThinkingPart(block["thinking"], signature=block.get("signature"), provider_name=system)
    if kind == "redacted_thinking":  # how pydantic-ai keeps Anthropic's redacted thinking
        return pm.ThinkingPart("", id="redacted_thinking", signature=block.get("data"), provider_name=system)
    if kind == "tool_call":
        arguments = block.get("arguments") or {}
        return pm.ToolCallPart(
            block["name"], arguments, tool_call_id=block["id"], provider_name=system, provider_details=details
        )
    if kind == "server_tool":
        return _server_tool_part(block, system)
    return None


def _server_tool_part(block: dict[str, Any], system: str) -> Any:
    """An Anthropic server-tool block as pydantic-ai's native-tool part (its web search: the one
    whose wire form it documents for history)."""
    data = block.get("data") or {}
    if block.get("dialect") != "anthropic":
        return None
    if data.get("type") == "server_tool_use" and data.get("name") == "web_search":
        return pm.NativeToolCallPart(
            WebSearchTool.kind, data.get("input") or {}, tool_call_id=data["id"], provider_name=system
        )
    if data.get("type") == "web_search_tool_result":
        return pm.NativeToolReturnPart(
            WebSearchTool.kind, data.get("content"), tool_call_id=data["tool_use_id"], provider_name=system
        )
    return None


def _native_tools(options: dict[str, Any]) -> list[AbstractNativeTool]:
    """`options.server_tools` as pydantic-ai's native tools (web search)."""
    return [
        WebSearchTool(max_uses=tool.get("max_uses"))
        for tool in options.get("server_tools") or []
        if isinstance(tool, dict) and tool.get("name") == "web_search"
    ]


_THINKING_BUDGET: dict[str, Callable[[int], dict[str, Any]]] = {
    "anthropic": lambda n: {"anthropic_thinking": {"type": "enabled", "budget_tokens": n}},
    "gemini": lambda n: {"google_thinking_config": {"thinking_budget": n}},
}
"""`options.thinking_budget` as the model class's own setting (`AnthropicModelSettings`, `GoogleModelSettings`)."""


def _messages(
    conversation: dict[str, Any], system: str, dialect: str
) -> tuple[list[pm.ModelMessage], ModelSettings, ModelRequestParameters]:
    """CONVERSATION.json → pydantic-ai messages, settings and tool definitions; the assistant turns
    as responses of `system` (the model's own provider), which is what lets pydantic-ai send their
    signatures back."""
    messages, options, _ = conversation_parts(conversation)
    out: list[pm.ModelMessage] = []
    pending: list[Any] = []
    for msg in messages:
        role, content = msg.get("role"), msg.get("content", "")
        if role == "system":
            pending.append(pm.SystemPromptPart(text_of(content)))
        elif role == "user":
            pending.append(pm.UserPromptPart(text_of(content)))
        elif role == "tool_result":
            pending.append(
                pm.ToolReturnPart(str(msg.get("tool_name", "")), text_of(content), tool_call_id=msg["tool_call_id"])
            )
        elif role == "assistant":
            if pending:
                out.append(pm.ModelRequest(parts=pending))
                pending = []
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            parts = [part for part in (_history_part(b, system) for b in blocks) if part is not None]
            out.append(pm.ModelResponse(parts=parts, provider_name=system))
        else:
            raise InputError(f"unknown role {role!r}", where="conversation.messages")
    if pending:
        out.append(pm.ModelRequest(parts=pending))
    # what an agent run does before every model request (pydantic-ai's docs: "Making histories
    # provider-valid"): a call left without its result gets a synthesized one, orphaned results go
    out = pm.repair_messages(out)
    settings: ModelSettings = {}
    for option, key in (
        ("max_tokens", "max_tokens"),
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("stop", "stop_sequences"),
    ):
        if option in options:
            settings[key] = options[option]  # type: ignore[literal-required]
    budget = options.get("thinking_budget")
    if isinstance(budget, int) and dialect in _THINKING_BUDGET:
        settings.update(_THINKING_BUDGET[dialect](budget))  # type: ignore[typeddict-item]
    tools = [
        ToolDefinition(name=t["name"], description=t.get("description"), parameters_json_schema=t.get("parameters", {}))
        for t in conversation.get("tools") or []
    ]
    params = ModelRequestParameters(function_tools=tools, native_tools=_native_tools(options), allow_text_output=True)
    return out, settings, params


def _anthropic_server_block(part: pm.NativeToolCallPart | pm.NativeToolReturnPart) -> dict[str, Any] | None:
    """An Anthropic server-tool call or result as the block Anthropic documents for it (the tool's
    wire name is in `provider_details['anthropic_tool_name']` where it differs from pydantic-ai's)."""
    tool = (part.provider_details or {}).get("anthropic_tool_name") or part.tool_name
    block = {"type": "server_tool", "dialect": "anthropic", "id": part.tool_call_id}
    if isinstance(part, pm.NativeToolCallPart):
        data = {"type": "server_tool_use", "id": part.tool_call_id, "name": tool, "input": part.args_as_dict()}
        return {**block, "name": "server_tool_use", "data": data}
    kind = f"{tool}_tool_result"
    return {**block, "name": kind, "data": {"type": kind, "tool_use_id": part.tool_call_id, "content": part.content}}


def _gemini_server_block(part: pm.NativeToolCallPart | pm.NativeToolReturnPart) -> dict[str, Any] | None:
    """Gemini's code execution (`executableCode`, `codeExecutionResult`), kept by pydantic-ai as
    native-tool parts of its `code_execution` tool, as the parts Gemini sent."""
    if part.tool_name != "code_execution":
        return None
    signature = (part.provider_details or {}).get("thought_signature")
    signed = {"thoughtSignature": signature} if signature else {}
    if isinstance(part, pm.NativeToolCallPart):
        data = {"executableCode": part.args_as_dict(), **signed}
        return {"type": "server_tool", "dialect": "gemini", "name": "executableCode", "data": data}
    result = part.content if isinstance(part.content, dict) else {}
    block = {"type": "server_tool", "dialect": "gemini", "name": "codeExecutionResult"}
    if isinstance(result.get("outcome"), str):
        block["status"] = result["outcome"]
    return {**block, "data": {"codeExecutionResult": result, **signed}}


_SERVER_BLOCKS: dict[str, Callable[[pm.NativeToolCallPart | pm.NativeToolReturnPart], dict[str, Any] | None]] = {
    "anthropic": _anthropic_server_block,
    "gemini": _gemini_server_block,
}
"""The provider's own tool work pydantic-ai keeps as native-tool parts, as `server_tool` blocks."""


def _server_block(part: pm.NativeToolCallPart | pm.NativeToolReturnPart, provider: str) -> dict[str, Any] | None:
    build = _SERVER_BLOCKS.get(get_profile(provider).dialect)
    return build(part) if build is not None else None


_REFUSAL_IS_TEXT = frozenset({"openai_chat"})
"""Dialects where `provider_details['refusal']` is the model's refusal message itself (Chat
Completions' `message.refusal`), not an explanation beside it (Anthropic's `stop_details`)."""


def _message(response: pm.ModelResponse, provider: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for part in response.parts:
        # Gemini's thoughtSignature, kept in the part's provider_details
        signature = (getattr(part, "provider_details", None) or {}).get("thought_signature")
        extra = {"signature": signature} if signature else {}
        if isinstance(part, pm.TextPart) and (part.content or signature):
            content.append({"type": "text", "text": part.content, **extra})
        elif isinstance(part, pm.ThinkingPart) and part.id == "redacted_thinking":  # how it keeps Anthropic's
            content.append({"type": "redacted_thinking", "data": part.signature})
        elif isinstance(part, pm.ThinkingPart) and (part.provider_details or {}).get("type") == "reasoning.encrypted":
            content.append({"type": "redacted_thinking", "data": part.signature})  # OpenRouter's encrypted reasoning
        elif isinstance(part, pm.ThinkingPart):
            content.append({"type": "thinking", "thinking": part.content, "signature": part.signature})
        elif isinstance(part, pm.NativeToolCallPart | pm.NativeToolReturnPart):
            server = _server_block(part, provider)
            if server is not None:
                content.append(server)
        elif isinstance(part, pm.ToolCallPart):
            block: dict[str, Any] = {"type": "tool_call", "id": part.tool_call_id, "name": part.tool_name, **extra}
            try:  # the library's own check: args that are not a JSON object raise here
                block["arguments"] = part.args_as_dict(raise_if_invalid=True)
            except (ValueError, AssertionError):
                block["arguments"], block["raw_arguments"] = {}, part.args
            content.append(block)
    out: dict[str, Any] = {"role": "assistant", "content": content, "provider": provider}
    if response.model_name:
        out["model"] = response.model_name
    details = response.provider_details or {}
    # the provider's own stop value; for a blocked Gemini prompt, the block reason
    raw = details.get("finish_reason") or details.get("block_reason")
    if response.finish_reason:
        out["stop_reason"] = _STOP.get(response.finish_reason, "error")
    refusal = details.get("refusal")
    if refusal or raw == "refusal":  # pydantic-ai files a refusal under content_filter, keeping it here
        out["stop_reason"] = "refusal"
    if isinstance(refusal, str) and get_profile(provider).dialect in _REFUSAL_IS_TEXT:
        content.append({"type": "text", "text": refusal})
    if raw:
        out["raw_stop_reason"] = raw
    u = response.usage
    out["usage"] = {
        "input_tokens": u.input_tokens,
        "output_tokens": u.output_tokens,
        "cache_read_tokens": u.cache_read_tokens,
        "cache_write_tokens": u.cache_write_tokens,
        "reasoning_tokens": u.output_reasoning_tokens,
    }
    return out


def _json_object(text: Any) -> dict[str, Any]:
    """A body the library keeps as the response's text (the Mistral SDK's), read as the JSON object it is."""
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _error(exc: errors.ModelAPIError) -> dict[str, Any]:
    kind = next((k for cls, k in _ERRORS if isinstance(exc, cls)), "invalid_request")
    body = exc.body if isinstance(exc.body, dict) else _json_object(exc.body)
    nested = body.get("error")
    inner: dict[str, Any] = nested if isinstance(nested, dict) else body
    # the provider's message: `error.message` (Mistral's `detail`), or `error` itself where it is a
    # string (xAI's `{"code", "error": "…"}`, which the openai SDK hands on as the body)
    said = inner.get("message") or inner.get("detail") or (nested if isinstance(nested, str) else None)
    said = said or (exc.body if isinstance(exc.body, str) and not body else None)
    out: dict[str, Any] = {"kind": kind, "message": str(said or exc.message)}
    status = getattr(exc, "status_code", None)
    if status is not None and (not exc.in_stream or status != 200):  # an in-stream error object's own status
        out["status"] = status
    metadata = inner.get("metadata")  # OpenRouter names the upstream provider's own code here
    upstream = metadata.get("provider_code") if isinstance(metadata, dict) else None
    if isinstance(upstream, str) and upstream:
        out["provider_code"] = upstream
    elif exc.provider_error_code or exc.provider_error_type:
        out["provider_code"] = exc.provider_error_code or exc.provider_error_type
    if exc.retry_after is not None:
        out["retry_after_s"] = float(exc.retry_after)
    return out


async def _run(
    model: Model, conversation: dict[str, Any], provider: str, settings: ModelSettings | None = None
) -> dict[str, Any]:
    messages, model_settings, params = _messages(conversation, model.system, get_profile(provider).dialect)
    model_settings.update(settings or {})
    stream = bool((conversation.get("options") or {}).get("stream"))
    streamed = None
    try:
        if stream:
            async with model_request_stream(
                model, messages, model_settings=model_settings, model_request_parameters=params
            ) as streamed:
                async for _ in streamed:
                    pass
                return {"message": _message(streamed.get(), provider)}
        response = await model_request(model, messages, model_settings=model_settings, model_request_parameters=params)
        return {"message": _message(response, provider)}
    except errors.ModelAPIError as exc:
        reraise_replay_mismatch(exc)
        partial = _message(streamed.get(), provider) if streamed is not None and streamed.get().parts else None
        return failed(_error(exc), partial)
    except errors.UnexpectedModelBehavior as exc:
        partial = _message(streamed.get(), provider) if streamed is not None and streamed.get().parts else None
        return failed({"kind": "stream_interrupted", "message": exc.message}, partial)


def _decode(model: Model, provider: str, stream: bool) -> dict[str, Any]:
    """A decode row's request through `model` (its answer is the recorded one), read."""
    # an explicit max_tokens: with its default (the model's maximum output) pydantic-ai streams
    # an Anthropic request even when asked not to, and could not read a non-streamed answer
    options = {"stream": stream, "max_tokens": 1024}
    conversation = {"messages": [{"role": "user", "content": "x"}], "options": options}
    result: dict[str, Any] = asyncio.run(_run(model, conversation, provider, {"max_retries": 0}))
    return result


def _encode(model: Model, conversation: dict[str, Any], provider: str) -> None:
    """The conversation's request through `model`, once (no retry: the request is what is judged)."""
    asyncio.run(_run(model, conversation, provider, {"max_retries": 0}))


REPRODUCTION = Reproduction(
    module=__name__,
    decode="""
def library_result(url: str) -> dict[str, Any]:
    return _decode(_model(PROVIDER, url + PATH, "dummy", None), PROVIDER, STREAM)
""",
    encode="""
def library_request(url: str) -> None:
    _encode(_model(PROVIDER, url + PATH, "dummy", None, CONVERSATION.get("model")), CONVERSATION, PROVIDER)
""",
    overrides="""
def _httpx2(transport: Any) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(timeout=600.0)  # the default transport: the loopback is a real socket
""",
)
"""A decode or encode row as a standalone script (`conformance repro`): the model class on the
loopback URL, its SDK on its default HTTP client."""


EXPOSED = frozenset(
    {
        "message.raw_stop_reason",
        "message.usage",
        "error.status",
        "error.provider_code",
        "error.retry_after_s",
        "error.message",
        "partial",
    }
)
PROVIDERS = dialect_providers("openai_chat", "anthropic", "gemini")


class PydanticAiRuntime:
    name = f"pydantic-ai {pydantic_ai.__version__}"
    reproduction = REPRODUCTION
    declaration = Declaration(
        name=name, version=pydantic_ai.__version__, providers=PROVIDERS, not_offered=NOT_OFFERED, exposed_fields=EXPOSED
    )

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        sent: list[dict[str, Any]] = []

        def capture(request: httpx.Request) -> httpx.Response:
            sent.append(json.loads(request.content))
            return httpx.Response(418, json={"error": {"message": "captured"}})

        profile = get_profile(provider)
        model = _model(provider, profile.base_url, "encode", httpx.MockTransport(capture), conversation.get("model"))
        _encode(model, conversation, provider)
        if not sent:
            raise InputError("pydantic-ai sent no request", where="encode")
        return sent[0]

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        def answer(request: httpx.Request) -> httpx.Response:
            # the body as it arrived: a dropped connection raises after its chunks, as from a socket
            return recorded_response(status, headers, chunks, request)

        profile = get_profile(provider)
        return _decode(_model(provider, profile.base_url, "replay", httpx.MockTransport(answer)), provider, stream)

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        model = _model(
            request.provider, request.base_url, request.keys[0], request.transport, request.conversation.get("model")
        )
        # the providers to fall back to, as pydantic-ai's docs configure it: a `FallbackModel` over the
        # models (its default `fallback_on`)
        fallbacks = [
            _model(f["provider"], f["base_url"], (f.get("keys") or ["replay"])[0], request.transport, f.get("model"))
            for f in request.settings.get("fallback") or []
        ]
        if fallbacks:
            model = FallbackModel(model, *fallbacks)
        policy = request.settings.get("policy", {})
        settings: ModelSettings = {"max_retries": int(policy["max_attempts"]) - 1} if "max_attempts" in policy else {}
        clients = (openai_base_client, anthropic_base_client, genai_api_client, groq_base_client)
        with sdk_sleeps_on(request.clock, *clients):
            return asyncio.run(_run(model, request.conversation, request.provider, settings))


class PydanticAiDecoder:
    """pydantic-ai's reading of responses alone: the recorded request stands in for its own (which
    the harness would otherwise match against the cassette first)."""

    name = f"pydantic-ai {pydantic_ai.__version__} (decode only)"
    reproduction = REPRODUCTION
    declaration = Declaration(
        name=name, version=pydantic_ai.__version__, providers=PROVIDERS, not_offered=NOT_OFFERED, exposed_fields=EXPOSED
    )

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        return PydanticAiRuntime().decode(provider, status, headers, chunks, stream)


def make() -> PydanticAiRuntime:
    return PydanticAiRuntime()


def make_decoder() -> PydanticAiDecoder:
    return PydanticAiDecoder()
