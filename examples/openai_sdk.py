"""The official `openai` Python SDK as a runtime under test (Chat Completions, any OpenAI-chat provider).

- `decode`: the recorded response goes through the SDK (`chat.completions.create`, streaming or not,
  its `ChatCompletionStreamState` accumulator) and the SDK's final objects — or the exception it
  raises — are mapped to the normalized form.
- `turn`: the SDK sends the request itself, with its own retry loop (`max_retries`, its reading of
  `retry-after-ms` / `retry-after`, its back-off). Its `time.sleep` waits on the harness clock.
  The SDK takes wire parameters, not a conversation: the request parameters are built with this
  package's encoder and handed to `create` as they are.

The SDK has no request encoder of its own, no history repair, no transcript loader: those
capabilities are absent and their rows are `skipped`.

Its async client (`AsyncOpenAI`, the same readings through the async stream and retry loop) is
`make_async`.

    conformance run --runtime examples.openai_sdk:make --provider openai
    conformance run --runtime examples.openai_sdk:make_async --provider openai
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import httpx
import httpx2
import openai
import openai._base_client as openai_base_client
from openai.lib.streaming.chat import ChatCompletionStreamState

from conformance.adapters import Reproduction, failed, mock_transport, reraise_replay_mismatch, sdk_sleeps_on
from conformance.capabilities import get_profile
from conformance.exceptions import InputError
from conformance.runtime.protocol import Declaration, TurnRequest
from examples._loop import run as run_async
from examples._offers import NOT_OFFERED, SDK_EXPOSED, dialect_providers
from examples._params import chat_params, max_tokens_field

VERSION = openai.__version__

_STOP = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "content_filter",
}

ERRORS: list[tuple[type[openai.APIStatusError], str]] = [
    (openai.BadRequestError, "invalid_request"),
    (openai.AuthenticationError, "auth"),
    (openai.PermissionDeniedError, "permission"),
    (openai.NotFoundError, "not_found"),
    (openai.RateLimitError, "rate_limited"),
    (openai.InternalServerError, "server"),
]
"""The SDK's exception classes → normalized error kinds (the SDK has no class for other statuses)."""


OVERLOADED_STATUSES = frozenset({503, 529})
"""Statuses every provider of these columns answers an overload with (the SDK: `InternalServerError`)."""


def _response_code(exc: openai.APIStatusError) -> str | None:
    """The `code` of the whole error body, where the SDK kept only its message (a string `error`: xAI)."""
    try:
        data = exc.response.json()
    except ValueError:
        return None
    code = data.get("code") if isinstance(data, dict) else None
    return code if isinstance(code, str) and code else None


def _error(exc: openai.OpenAIError) -> dict[str, Any]:
    if isinstance(exc, openai.APITimeoutError):
        return {"kind": "timeout", "message": str(exc)}
    if isinstance(exc, openai.APIStatusError):
        kind = next((k for cls, k in ERRORS if isinstance(exc, cls)), "invalid_request")
        # the SDK hands on the body's `error` (an object, or a string where the provider sends one: xAI)
        body = exc.body if isinstance(exc.body, dict) else {}
        metadata = body.get("metadata")
        error_type = metadata.get("error_type") if isinstance(metadata, dict) else None
        if exc.code == "context_length_exceeded" or error_type == "context_length_exceeded":
            kind = "context_overflow"  # the error's own code (OpenRouter's in its `metadata`)
        elif exc.status_code in OVERLOADED_STATUSES:
            kind = "overloaded"  # the SDK keeps the status under its one class for every 5xx
        said = body.get("message") or body.get("detail") or (exc.body if isinstance(exc.body, str) else None)
        out: dict[str, Any] = {"kind": kind, "status": exc.status_code, "message": str(said or exc)}
        code = exc.code or exc.type or _response_code(exc)
        if code:  # the SDK's two identifiers of the error object, else the whole body's `code` (xAI)
            out["provider_code"] = str(code)
        return out
    if isinstance(exc, openai.APIError):  # an `error` event inside a stream
        out = {"kind": "stream_interrupted", "message": exc.message}
        # the status the event's error object states (Groq's `status_code`, OpenRouter's numeric `code`)
        body = exc.body if isinstance(exc.body, dict) else {}
        status = body.get("status_code", body.get("code"))
        status = int(status) if isinstance(status, str) and status.isdigit() else status
        if isinstance(status, int) and not isinstance(status, bool):
            out["status"] = status
        # OpenRouter names the upstream provider's own code in `metadata.provider_code`
        metadata = body.get("metadata")
        upstream = metadata.get("provider_code") if isinstance(metadata, dict) else None
        if isinstance(upstream, str) and upstream:
            out["provider_code"] = upstream
            return out
        if exc.code or exc.type:
            out["provider_code"] = str(exc.code or exc.type)
        return out
    return {"kind": "stream_interrupted", "message": str(exc)}


def _reasoning(msg: Any, provider: str) -> list[dict[str, Any]]:
    """The reasoning the SDK keeps untyped in `message.model_extra`, under the field names the host
    documents (`reasoning_content`, `reasoning`, OpenRouter's `reasoning_details` with signatures
    and encrypted entries): thinking blocks, before the answer."""
    profile = get_profile(provider)
    extra = getattr(msg, "model_extra", None) or {}
    details = extra.get("reasoning_details") if profile.reasoning_details else None
    if isinstance(details, list) and details:
        out: list[dict[str, Any]] = []
        for item in details:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "reasoning.encrypted" and isinstance(item.get("data"), str):
                out.append({"type": "redacted_thinking", "data": item["data"]})
            elif kind in ("reasoning.text", "reasoning.summary"):
                text = item.get("text") if kind == "reasoning.text" else item.get("summary")
                out.append({"type": "thinking", "thinking": text or "", "signature": item.get("signature")})
        return out
    for name in (*profile.reasoning_fields, *profile.reasoning_fields_read):
        value = extra.get(name)
        if isinstance(value, str) and value:
            return [{"type": "thinking", "thinking": value, "signature": None}]
    return []


def _content(content: Any) -> list[dict[str, Any]]:
    """`message.content`: a string, or (kept as received where a host sends typed chunks, Mistral's
    `text` and `thinking`) a list of them."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    thinking: list[dict[str, Any]] = []
    text: list[dict[str, Any]] = []
    for chunk in content if isinstance(content, list) else []:
        kind = chunk.get("type") if isinstance(chunk, dict) else None
        if kind == "text" and chunk.get("text"):
            text.append({"type": "text", "text": chunk["text"]})
        elif kind == "thinking":
            inner = chunk.get("thinking")
            items = inner if isinstance(inner, list) else [{"text": inner}]
            said = "".join(str(i.get("text") or "") for i in items if isinstance(i, dict))
            thinking.append({"type": "thinking", "thinking": said, "signature": None})
    return thinking + text


def _tool_call(call_id: str, function: Any) -> dict[str, Any]:
    try:
        args = json.loads(function.arguments or "{}")
    except ValueError:
        args = None
    block: dict[str, Any] = {"type": "tool_call", "id": call_id, "name": function.name}
    block["arguments"] = args if isinstance(args, dict) else {}
    if not isinstance(args, dict):
        block["raw_arguments"] = function.arguments
    return block


def _message(completion: Any, provider: str) -> dict[str, Any]:
    choice = completion.choices[0] if completion.choices else None
    msg = choice.message if choice is not None else None
    content: list[dict[str, Any]] = _reasoning(msg, provider) if msg is not None else []
    if msg is not None:
        content += _content(msg.content)
    refusal = msg.refusal if msg is not None else None  # the SDK's typed `refusal` field
    refused = bool(refusal)
    if refusal:
        content.append({"type": "text", "text": refusal})
    calls = (msg.tool_calls if msg is not None else None) or []
    for position, call in enumerate(calls):
        content.append(_tool_call(call.id or f"call_{position}", call.function))
    legacy = msg.function_call if msg is not None else None  # the deprecated functions API: no id on the wire
    if legacy is not None and legacy.name:
        content.append(_tool_call(f"call_{len(calls)}", legacy))
    out: dict[str, Any] = {"role": "assistant", "content": content, "provider": provider, "model": completion.model}
    if choice is not None and choice.finish_reason:
        out["stop_reason"] = "refusal" if refused else _STOP.get(choice.finish_reason, "stop")
        out["raw_stop_reason"] = choice.finish_reason
    usage = completion.usage
    if usage is not None:
        prompt = usage.prompt_tokens_details
        cached = prompt.cached_tokens if prompt else None
        written = getattr(prompt, "cache_write_tokens", None)  # OpenRouter's, an extra field of the SDK's model
        reasoning = usage.completion_tokens_details.reasoning_tokens if usage.completion_tokens_details else None
        # a host whose `completion_tokens` leave the reasoning out (xAI) reports both counts
        hidden = (reasoning or 0) if get_profile(provider).output_excludes_reasoning else 0
        out["usage"] = {
            "input_tokens": usage.prompt_tokens,
            "output_tokens": usage.completion_tokens + hidden,
            "cache_read_tokens": cached or 0,
            "cache_write_tokens": written if isinstance(written, int) else 0,
            "reasoning_tokens": reasoning or 0,
        }
    return out


def _create_params(params: dict[str, Any]) -> dict[str, Any]:
    params = {"model": "x", "messages": [], **params}
    params.pop("stream", None)
    return params


class _Reading:
    """What one `chat.completions.create` has given so far: the SDK's stream accumulator, fed chunk
    by chunk, and how many chunks it had."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.state = ChatCompletionStreamState()
        self.chunks = 0

    def add(self, chunk: Any) -> None:
        self.state.handle_chunk(chunk)
        self.chunks += 1

    def streamed(self) -> dict[str, Any]:
        if not self.chunks:  # the SDK's stream yielded nothing: there is no completion to read
            return {"message": {"role": "assistant", "content": [], "provider": self.provider}}
        return {"message": _message(self.state.current_completion_snapshot, self.provider)}

    def failed(self, exc: openai.OpenAIError) -> dict[str, Any]:
        partial = _message(self.state.current_completion_snapshot, self.provider) if self.chunks else None
        reraise_replay_mismatch(exc)
        return failed(_error(exc), partial)


def _call(client: openai.OpenAI, params: dict[str, Any], stream: bool, provider: str) -> dict[str, Any]:
    """One `chat.completions.create` through the SDK, its documented keyword arguments → the
    normalized outcome."""
    params, reading = _create_params(params), _Reading(provider)
    try:
        if stream:
            for chunk in client.chat.completions.create(**params, stream=True):
                reading.add(chunk)
            return reading.streamed()
        return {"message": _message(client.chat.completions.create(**params), provider)}
    except openai.OpenAIError as exc:
        return reading.failed(exc)


async def _acall(client: openai.AsyncOpenAI, params: dict[str, Any], stream: bool, provider: str) -> dict[str, Any]:
    """`_call` through the SDK's async client."""
    params, reading = _create_params(params), _Reading(provider)
    try:
        if stream:
            async for chunk in await client.chat.completions.create(**params, stream=True):
                reading.add(chunk)
            return reading.streamed()
        return {"message": _message(await client.chat.completions.create(**params), provider)}
    except openai.OpenAIError as exc:
        return reading.failed(exc)


def _turn_params(request: TurnRequest) -> tuple[dict[str, Any], bool, int]:
    """The request parameters (the program's own mapping, with the completion-limit parameter the
    host documents), whether to stream, and the SDK's `max_retries`."""
    profile = get_profile(request.provider)
    model = request.conversation.get("model") or profile.default_model
    params, stream = chat_params(request.conversation, profile.default_model, max_tokens_field(profile, model))
    attempts = request.settings.get("policy", {}).get("max_attempts", openai.DEFAULT_MAX_RETRIES + 1)
    return params, stream, int(attempts) - 1


REPRODUCTION = Reproduction(
    module=__name__,
    decode="""
def library_result(url: str) -> dict[str, Any]:
    client = openai.OpenAI(api_key="dummy", base_url=url + PATH, max_retries=0)
    with client:
        return _call(client, {}, STREAM, PROVIDER)
""",
)
"""A decode row as a standalone script (`conformance repro`): the SDK's client on the loopback URL."""

ASYNC_REPRODUCTION = Reproduction(
    module=__name__,
    decode="""
def library_result(url: str) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with openai.AsyncOpenAI(api_key="dummy", base_url=url + PATH, max_retries=0) as client:
            return await _acall(client, {}, STREAM, PROVIDER)

    return asyncio.run(run())
""",
)
"""The same through the SDK's async client."""


class OpenAISdkRuntime:
    name = f"openai-sdk {openai.__version__}"
    reproduction = REPRODUCTION
    declaration = Declaration(
        name=f"openai-sdk {openai.__version__}",
        version=VERSION,
        providers=dialect_providers("openai_chat"),
        not_offered=NOT_OFFERED,
        exposed_fields=SDK_EXPOSED,
    )

    def _check(self, provider: str) -> None:
        if get_profile(provider).dialect != "openai_chat":
            raise InputError(f"the openai SDK speaks the OpenAI chat dialect, not {provider}'s", where="--provider")

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        self._check(provider)
        transport = mock_transport(status, headers, chunks)
        client = openai.OpenAI(api_key="replay", max_retries=0, http_client=httpx2.Client(transport=transport))
        with client:
            return _call(client, {}, stream, provider)

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        self._check(request.provider)
        params, stream, retries = _turn_params(request)
        client = openai.OpenAI(
            api_key=request.keys[0],
            base_url=request.base_url,
            http_client=httpx.Client(transport=request.transport),  # type: ignore[arg-type]  # legacy httpx is accepted
            max_retries=retries,
        )
        with client, sdk_sleeps_on(request.clock, openai_base_client):
            return _call(client, params, stream, request.provider)


class AsyncOpenAISdkRuntime(OpenAISdkRuntime):
    """The same SDK through its async client (`openai.AsyncOpenAI`): its async stream, its async
    retry loop (`anyio.sleep`, on the harness clock)."""

    name = f"openai-sdk-async {openai.__version__}"
    reproduction = ASYNC_REPRODUCTION
    declaration = dataclasses.replace(OpenAISdkRuntime.declaration, name=name)

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        self._check(provider)

        async def run() -> dict[str, Any]:
            http = httpx2.AsyncClient(transport=mock_transport(status, headers, chunks))
            async with openai.AsyncOpenAI(api_key="replay", max_retries=0, http_client=http) as client:
                return await _acall(client, {}, stream, provider)

        return run_async(run())

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        self._check(request.provider)
        params, stream, retries = _turn_params(request)

        async def run() -> dict[str, Any]:
            client = openai.AsyncOpenAI(
                api_key=request.keys[0],
                base_url=request.base_url,
                http_client=httpx.AsyncClient(transport=request.transport),  # type: ignore[arg-type]  # legacy httpx is accepted
                max_retries=retries,
            )
            async with client:
                return await _acall(client, params, stream, request.provider)

        with sdk_sleeps_on(request.clock, openai_base_client):
            return asyncio.run(run())


def make() -> OpenAISdkRuntime:
    return OpenAISdkRuntime()


def make_async() -> AsyncOpenAISdkRuntime:
    return AsyncOpenAISdkRuntime()
