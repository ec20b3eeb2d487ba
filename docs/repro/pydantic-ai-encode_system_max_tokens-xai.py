#!/usr/bin/env python3
r"""encode_system_max_tokens[xai]: pydantic-ai 2.68.0, standalone.

Needs only the library the row ran (pydantic-ai 2.68.0) and Python 3.10+, nothing of the project that wrote it.
    python THIS_FILE.py            exit 0: the library gives the expected value; 1: it does not
    python THIS_FILE.py --got      print what the library gives at each checked path (JSON)

The row (encode check), as `conformance run --runtime examples.pydantic_ai_runtime:make --provider xai
--scenario encode_system_max_tokens --show-diff` shows it (fail):
    + stop: ["###"] (unexpected)

Rule source:
    https://docs.x.ai/docs/guides/reasoning — "presencePenalty, frequencyPenalty and stop parameters are not supported by reasoning models. Adding them in the request would result in an error."
"""


from __future__ import annotations

import base64
import json
import re
import sys
import threading
import types
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


# the recorded answer the loopback serves (the body in the chunks the row replays, base64)
RECORDED = json.loads(r'''{"status": 418, "headers": {"content-type": "application/json"}, "chunks": ["eyJlcnJvciI6IHsibWVzc2FnZSI6ICJjYXB0dXJlZCJ9fQ=="], "dropped": false}''')


# the loopback server: every request answered with the recorded response, each chunk flushed on its
# own (chunked transfer encoding); a recording whose connection dropped is closed mid-body
HOP = {"content-length", "transfer-encoding", "content-encoding", "connection"}
SENT: list[bytes] = []  # the request bodies the library sent


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        SENT.append(self.rfile.read(length) if length else b"")
        self.send_response(RECORDED["status"])
        for key, value in RECORDED["headers"].items():
            if key.lower() not in HOP:
                self.send_header(key, value)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for chunk in RECORDED["chunks"]:
            body = base64.b64decode(chunk)
            if body:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(body), body))
                self.wfile.flush()
        if RECORDED["dropped"]:
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = answer

    def log_message(self, format: str, *args: Any) -> None:
        return


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # a client hanging up early is no error here


# the row's call
PROVIDER = "xai"
MODEL = None
STREAM = False
PATH = "/v1"
CONVERSATION = json.loads(r'''{"messages": [{"role": "system", "content": "You are a terse assistant. Answer in one sentence."}, {"role": "user", "content": "What is the boiling point of water at sea level?"}], "options": {"max_tokens": 300, "temperature": 0.2, "stop": ["###"], "drop_unsupported": true}}''')
PROFILE = {'default_model': 'grok-3-mini', 'dialect': 'openai_chat'}


# what the adapter's code imports
from mistralai.client import Mistral
from openai import AsyncOpenAI
from pydantic_ai import exceptions as errors
from pydantic_ai import messages as pm
from pydantic_ai.direct import model_request
from pydantic_ai.direct import model_request_stream
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.models.groq import GroqModel
from pydantic_ai.models.mistral import MistralModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.models.openrouter import OpenRouterModel
from pydantic_ai.native_tools import WebSearchTool
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.deepseek import DeepSeekProvider
from pydantic_ai.providers.fireworks import FireworksProvider
from pydantic_ai.providers.google import GoogleProvider
from pydantic_ai.providers.groq import GroqProvider
from pydantic_ai.providers.mistral import MistralProvider
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.providers.openrouter import OpenRouterProvider
from pydantic_ai.tools import ToolDefinition
import asyncio
import functools
import httpx
import httpx2


# stand-ins for the names of the harness the adapter's code reads
class InputError(Exception):
    def __init__(self, message: str, *, where: str = '') -> None:
        super().__init__(f'{where}: {message}' if where else message)


def get_profile(name: str) -> Any:
    """The provider's registry flags the copied code reads (this script serves one provider)."""
    return types.SimpleNamespace(**PROFILE)


def reraise_replay_mismatch(exc: BaseException | None, transport: Any = None) -> None:
    """The harness's "request not in cassette" signal: there is no cassette here."""


# the adapter's call and mapping, as it is
# from conformance.adapters._conversation
def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the `text` blocks of a block list joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")


def conversation_parts(conversation: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    """(messages, options, model) of a CONVERSATION.json, checked enough to name what is wrong."""
    messages = conversation.get("messages")
    if not isinstance(messages, list):
        raise InputError("`messages` must be a list", where="conversation")
    options = conversation.get("options") or {}
    if not isinstance(options, dict):
        raise InputError("`options` must be an object", where="conversation")
    return messages, dict(options), str(conversation.get("model") or "")


def failed(error: dict[str, Any], partial: dict[str, Any] | None) -> dict[str, Any]:
    """The outcome of a response that failed after `partial` arrived: the partial message carries the
    error too (docs/normalized-form.md); an error the provider sent ends it with `stop_reason: error`."""
    if partial is not None:
        partial = {**partial, "error": error}
        if error.get("kind") != "stream_interrupted":
            partial["stop_reason"] = "error"
    return {"error": error, "partial": partial}


# from examples.pydantic_ai_runtime
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


def _server_block(part: pm.NativeToolCallPart | pm.NativeToolReturnPart, provider: str) -> dict[str, Any] | None:
    build = _SERVER_BLOCKS.get(get_profile(provider).dialect)
    return build(part) if build is not None else None


_REFUSAL_IS_TEXT = frozenset({"openai_chat"})


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


def _encode(model: Model, conversation: dict[str, Any], provider: str) -> None:
    """The conversation's request through `model`, once (no retry: the request is what is judged)."""
    asyncio.run(_run(model, conversation, provider, {"max_retries": 0}))


# the client built as a user builds it (the adapter's is on the harness's transport)
def _httpx2(transport: Any) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(timeout=600.0)  # the default transport: the loopback is a real socket


# the library called for this row
def library_request(url: str) -> None:
    _encode(_model(PROVIDER, url + PATH, "dummy", None, CONVERSATION.get("model")), CONVERSATION, PROVIDER)


# what the row expects at each path it differs at (rules: equals, absent, range, pattern)
# the row's rule, as its source says it:
#     https://docs.x.ai/docs/guides/reasoning — "presencePenalty, frequencyPenalty and stop parameters are not supported by reasoning models. Adding them in the request would result in an error."
# stop: xai reads a different request (options)
EXPECTED = json.loads(r'''
[
 {
  "path": "stop",
  "rule": "absent",
  "line": "added"
 }
]
''')  # EXPECTED end


MISSING = object()


def at(value: Any, path: str) -> Any:
    """The value at a path such as `message.content[0].text` (MISSING where there is none)."""
    if path == "(root)":
        return value
    for key in re.findall(r"\[\d+\]|[^.\[\]]+", path):
        if key.startswith("["):
            index = int(key[1:-1])
            if not isinstance(value, list) or index >= len(value):
                return MISSING
            value = value[index]
        elif isinstance(value, dict) and key in value:
            value = value[key]
        else:
            return MISSING
    return value


def same(a: Any, b: Any) -> bool:
    """Equal as JSON, types included (1, 1.0 and true differ)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def difference(check: dict[str, Any], got: Any) -> str | None:
    """The row's difference line where the library's value breaks the check; None where it holds."""
    path, rule = check["path"], check["rule"]
    if rule == "absent":
        if got is MISSING:
            return None
        if check["line"] == "added":
            return f"+ {path}: {short(got)} (unexpected)"
        return f"~ {path}: expected null, got {short(got)}"
    if rule == "pattern":
        if isinstance(got, str) and re.fullmatch(check["pattern"], got):
            return None
        return f"~ {path}: {None if got is MISSING else got!r} does not match {check['pattern']!r}"
    if rule == "range":
        if isinstance(got, int) and check["low"] <= got <= check["high"]:
            return None
        return f"~ {path}: expected {short(check['expected'])}, got {short(None if got is MISSING else got)}"
    if got is not MISSING and same(got, check["expected"]):
        return None
    if got is MISSING:
        return f"- {path}: {short(check['expected'])} (missing)"
    return f"~ {path}: expected {short(check['expected'])}, got {short(got)}"


def judge(value: Any) -> int:
    """Print the differences (exit status 1) or say the library agrees (0); `--got`: the checks with
    the library's values in place of the expected ones (a script that passes on this library)."""
    if "--got" in sys.argv[1:]:
        out = []
        for check in EXPECTED:
            got = at(value, check["path"])
            if got is MISSING:
                out.append({"path": check["path"], "rule": "absent", "line": "added"})
            else:
                out.append({"path": check["path"], "rule": "equals", "expected": got, "line": "changed"})
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return 0
    lines = [line for check in EXPECTED if (line := difference(check, at(value, check["path"]))) is not None]
    if not lines:
        print(f"ok: {len(EXPECTED)} checked path(s) as expected")
        return 0
    print(f"{len(lines)} difference(s) from the expected value:")
    for line in lines:
        print(line)
    return 1


def main() -> int:
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        library_request(f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
    if not SENT:
        print("the library sent no request")
        return 1
    return judge(json.loads(SENT[0]))


if __name__ == "__main__":
    sys.exit(main())
