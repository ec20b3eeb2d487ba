"""litellm (the multi-provider Python client) as a runtime under test: every chat column it has a provider for.

Configured as litellm's docs tell a user: the model named with the provider's prefix
(`anthropic/claude-…`, `gemini/gemini-…`, `openrouter/…`, `fireworks_ai/…`, `PROVIDER_PREFIX`),
`api_base` pointing at the host, its own async entry point (`litellm.acompletion`, stream or not;
a stream is rebuilt with `litellm.stream_chunk_builder`, given the conversation's messages as
litellm documents, so its usage estimate has the prompt it needs).

- `decode`: the recorded response is served on a loopback URL (`conformance.adapters.serve_response`)
  in the row's chunks, since litellm reaches providers through several HTTP stacks (the openai SDK,
  its own httpx and aiohttp handlers); litellm's `ModelResponse` — or the exception it raises — is
  mapped to the normalized form, every field it keeps: `content`, `reasoning_content`,
  `thinking_blocks` (signatures, redacted data), `tool_calls` (and a Gemini signature kept in their
  `provider_specific_fields`), `finish_reason`, `usage` with its cache and reasoning details.
- litellm has no public request encoder and no single transport to hand the harness's: `encode`
  and `turn` are absent and their rows `skipped`.

Versions covered: litellm 1.60 and later (`stream_chunk_builder` taking `messages`; earlier
releases end with a one-line error). Its retries need `tenacity`.

    conformance run --runtime examples.litellm_runtime:make --provider openai --provider anthropic --provider gemini
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
from typing import Any

from conformance.adapters import Reproduction, conversation_parts, failed, serve_response, text_of
from conformance.capabilities import get_profile
from conformance.exceptions import InputError
from conformance.runtime.protocol import Declaration
from examples._offers import NOT_OFFERED
from examples._supported import require_version

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's documented offline switch: no fetch at import
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # its token counter: the bundled tokenizers, no download
litellm, VERSION = require_version("litellm", "litellm", minimum=(1, 60))
litellm.suppress_debug_info = True  # its "Give Feedback / Get Help" banner on every exception

PROVIDER_PREFIX: dict[str, str] = {
    "openai": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "openrouter": "openrouter",
    "xai": "xai",
    "fireworks": "fireworks_ai",
    "groq": "groq",
    "deepseek": "deepseek",
    "mistral": "mistral",
    "together": "together_ai",
    "cerebras": "cerebras",
    "perplexity": "perplexity",
    "openai-compatible": "openai",
}
"""Column → litellm's provider prefix (docs.litellm.ai/docs/providers). Vertex needs Google
credentials litellm fetches itself, Azure a deployment: their columns are not offered."""

STOP = {"stop": "stop", "length": "length", "tool_calls": "tool_use", "function_call": "tool_use"}
STOP |= {"content_filter": "content_filter"}
"""litellm's finish reasons (OpenAI's vocabulary for every provider) → stop reasons."""

ERRORS: list[tuple[str, str]] = [
    ("ContextWindowExceededError", "context_overflow"),
    ("ContentPolicyViolationError", "content_filter"),
    ("AuthenticationError", "auth"),
    ("PermissionDeniedError", "permission"),
    ("NotFoundError", "not_found"),
    ("RateLimitError", "rate_limited"),
    ("ServiceUnavailableError", "overloaded"),
    ("Timeout", "timeout"),
    ("InternalServerError", "server"),
    ("BadGatewayError", "server"),
    ("BadRequestError", "invalid_request"),
    ("UnprocessableEntityError", "invalid_request"),
    ("APIConnectionError", "stream_interrupted"),
]
"""litellm's exception classes (most specific first) → normalized error kinds."""

EXPOSED = frozenset({"message.usage", "error.status", "partial"})
"""litellm maps every provider's finish reason to OpenAI's and keeps no raw one, nor a provider error
code; its exception messages are its own sentences around the provider's (or its whole error body)."""

THOUGHT = "__thought__"
"""litellm keeps a Gemini call's thought signature inside the call id it hands out (`<id>__thought__<signature>`)."""


def _error(exc: Exception) -> dict[str, Any]:
    original = getattr(exc, "original_exception", None)
    if isinstance(exc, litellm.exceptions.MidStreamFallbackError) and isinstance(original, Exception):
        exc = original  # the stream broke after chunks came: what broke it is the error
    kind = next((k for name, k in ERRORS if isinstance(exc, getattr(litellm, name))), None)
    status = getattr(exc, "status_code", None)
    if kind is None:
        kind = "server" if isinstance(status, int) and status >= 500 else "stream_interrupted"
    out: dict[str, Any] = {"kind": kind, "message": str(getattr(exc, "message", None) or exc)}
    if isinstance(status, int) and status >= 400:
        out["status"] = status
    return out


def _field(obj: Any, name: str) -> Any:
    value = getattr(obj, name, None)
    return value if value is not None else (obj.get(name) if isinstance(obj, dict) else None)


def _calls(msg: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(tool calls, server-tool blocks) of a litellm message: its `tool_calls` (or legacy
    `function_call`), and Anthropic's own tools' blocks, which litellm keeps apart from the text."""
    content: list[dict[str, Any]] = []
    server: list[dict[str, Any]] = []
    extra_fields = _field(msg, "provider_specific_fields") or {}
    legacy = _field(msg, "function_call")
    calls = list(_field(msg, "tool_calls") or [])
    if legacy is not None and not calls:
        calls = [{"id": None, "function": legacy}]
    for n, call in enumerate(calls):
        function = _field(call, "function")
        raw = _field(function, "arguments") or ""
        try:
            args = json.loads(raw or "{}")
        except ValueError:
            args = None
        ident, _, signature = str(_field(call, "id") or f"call_{n}").partition(THOUGHT)
        if ident.startswith("srvtoolu_"):  # Anthropic's own tool (web search): kept as a call by litellm
            data = {"type": "server_tool_use", "id": ident, "name": _field(function, "name"), "input": args}
            server.append({"type": "server_tool", "dialect": "anthropic", "name": "server_tool_use", "id": ident})
            server[-1]["data"] = data
            continue
        block: dict[str, Any] = {"type": "tool_call", "id": ident, "name": _field(function, "name")}
        block["arguments"] = args if isinstance(args, dict) else {}
        if not isinstance(args, dict):
            block["raw_arguments"] = raw
        extra = _field(call, "provider_specific_fields") or {}
        if isinstance(extra, dict) and isinstance(extra.get("thought_signature"), str):
            block["signature"] = extra["thought_signature"]
        elif signature:
            block["signature"] = signature
        content.append(block)
    for result in extra_fields.get("web_search_results") or [] if isinstance(extra_fields, dict) else []:
        server.append(
            {
                "type": "server_tool",
                "dialect": "anthropic",
                "name": str(result.get("type")),
                "id": result.get("tool_use_id"),
                "data": result,
            }
        )
    return content, server


def _message(response: Any, provider: str) -> dict[str, Any]:
    choice = response.choices[0] if response.choices else None
    msg = choice.message if choice is not None else None
    content: list[dict[str, Any]] = []
    for block in _field(msg, "thinking_blocks") or []:
        if _field(block, "type") == "redacted_thinking":
            content.append({"type": "redacted_thinking", "data": _field(block, "data")})
        else:
            content.append(
                {
                    "type": "thinking",
                    "thinking": _field(block, "thinking") or "",
                    "signature": _field(block, "signature"),
                }
            )
    reasoning = _field(msg, "reasoning_content")
    if reasoning and not content:
        content.append({"type": "thinking", "thinking": reasoning})
    if msg is not None and msg.content:
        content.append({"type": "text", "text": msg.content})
    refusal = _field(msg, "refusal")
    if refusal and not (msg is not None and msg.content):  # OpenAI: the refusal is the answer's text
        content.append({"type": "text", "text": refusal})
    calls, server = _calls(msg)
    content += calls
    thinking = [b for b in content if b["type"] in ("thinking", "redacted_thinking")]
    content = thinking + server + [b for b in content if b not in thinking]  # the tools ran before the text came
    out: dict[str, Any] = {"role": "assistant", "content": content, "provider": provider, "model": response.model}
    if choice is not None and choice.finish_reason:
        out["stop_reason"] = "refusal" if refusal else STOP.get(choice.finish_reason, "stop")
    usage = _field(response, "usage")
    if usage is not None:
        cached = _field(_field(usage, "prompt_tokens_details"), "cached_tokens")
        reasoning_tokens = _field(_field(usage, "completion_tokens_details"), "reasoning_tokens")
        out["usage"] = {
            "input_tokens": usage.prompt_tokens or 0,
            "output_tokens": usage.completion_tokens or 0,
            "cache_read_tokens": cached or _field(usage, "cache_read_input_tokens") or 0,
            "cache_write_tokens": _field(usage, "cache_creation_input_tokens") or 0,
            "reasoning_tokens": reasoning_tokens or 0,
        }
    return out


def _messages(conversation: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The conversation's messages in the OpenAI shape litellm takes (text turns; the prompt for usage)."""
    if not conversation:
        return [{"role": "user", "content": "hi"}]
    messages, _, _ = conversation_parts(conversation)
    out: list[dict[str, Any]] = []
    for msg in messages:
        role = msg.get("role")
        if role == "tool_result":
            out.append(
                {"role": "tool", "tool_call_id": msg.get("tool_call_id"), "content": text_of(msg.get("content"))}
            )
        elif role in ("system", "user", "assistant"):
            out.append({"role": role, "content": text_of(msg.get("content"))})
    return out or [{"role": "user", "content": "hi"}]


async def _call(
    model: str, api_base: str, messages: list[dict[str, Any]], stream: bool, provider: str
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"model": model, "messages": messages, "api_base": api_base, "api_key": "replay"}
    kwargs |= {"num_retries": 0, "max_retries": 0}
    chunks: list[Any] = []
    try:
        if not stream:
            return {"message": _message(await litellm.acompletion(**kwargs), provider)}
        async for chunk in await litellm.acompletion(stream=True, **kwargs):
            chunks.append(chunk)
        built = litellm.stream_chunk_builder(chunks, messages=messages)
        if built is None:
            return failed({"kind": "stream_interrupted", "message": "the stream held no chunk"}, None)
        message = _message(built, provider)
        if "stop_reason" not in message:
            return failed({"kind": "stream_interrupted", "message": "the stream ended without a finish"}, message)
        return {"message": message}
    except Exception as exc:  # litellm's exceptions (and a cut stream it did not wrap)
        partial = litellm.stream_chunk_builder(chunks, messages=messages) if chunks else None
        return failed(_error(exc), None if partial is None else _message(partial, provider))


_LOOP: asyncio.AbstractEventLoop | None = None


def _run(call: Any) -> Any:
    """Run a coroutine on one event loop kept for the process: litellm's logging worker binds to the
    loop it first runs on (a new loop per call makes it carry its pending tasks over each time)."""
    global _LOOP
    if _LOOP is None or _LOOP.is_closed():
        _LOOP = asyncio.new_event_loop()
        atexit.register(_LOOP.close)
    return _LOOP.run_until_complete(call)


REPRODUCTION = Reproduction(
    module=__name__,
    setup="""
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's documented offline switch
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # its token counter: the bundled tokenizers, no download
import litellm

litellm.suppress_debug_info = True
""",
    decode="""
def library_result(url: str) -> dict[str, Any]:
    name = f"{PROVIDER_PREFIX[PROVIDER]}/{MODEL or get_profile(PROVIDER).default_model}"
    return _run(_call(name, url + PATH, _messages(CONVERSATION), STREAM, PROVIDER))
""",
)
"""A decode row as a standalone script (`conformance repro`): `decode` with the loopback the script serves."""


class LitellmRuntime:
    name = f"litellm {VERSION}"
    reproduction = REPRODUCTION
    declaration = Declaration(
        name=f"litellm {VERSION}",
        version=VERSION,
        providers=frozenset(PROVIDER_PREFIX),
        not_offered=NOT_OFFERED,
        exposed_fields=EXPOSED,
    )

    def decode(
        self,
        provider: str,
        status: int,
        headers: dict[str, str],
        chunks: list[bytes],
        stream: bool,
        *,
        model: str | None = None,
        conversation: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        prefix = PROVIDER_PREFIX.get(provider)
        if prefix is None:
            raise InputError(
                f"this adapter drives litellm for {', '.join(PROVIDER_PREFIX)}, not {provider}", where="--provider"
            )
        profile = get_profile(provider)
        path = "/" + profile.base_url.split("//", 1)[-1].partition("/")[2]
        with serve_response(status, headers, chunks) as served:
            name = f"{prefix}/{model or profile.default_model}"
            return _run(_call(name, served.url + path.rstrip("/"), _messages(conversation), stream, provider))


def make() -> LitellmRuntime:
    return LitellmRuntime()
