"""The official `anthropic` Python SDK as a runtime under test (Messages API).

- `decode`: the recorded response goes through the SDK (`messages.create`, or `messages.stream` and
  its message accumulator) and the SDK's final `Message` — or the exception it raises, with the
  snapshot accumulated so far as the partial message — is mapped to the normalized form.
- `turn`: the SDK sends the request itself, with its own retry loop (`max_retries`, its reading of
  `retry-after-ms` / `retry-after`, its back-off). Its `time.sleep` waits on the harness clock. The
  SDK is built on `httpx2`: the harness's `httpx` transport reaches it through a small bridge. The
  SDK takes wire parameters, not a conversation: they are built with this package's encoder.

The SDK has no request encoder of its own, no history repair, no transcript loader: those
capabilities are absent and their rows are `skipped`.

Its async client (`AsyncAnthropic`, the same readings through the async stream and retry loop) is
`make_async`.

    conformance run --runtime examples.anthropic_sdk:make --provider anthropic
    conformance run --runtime examples.anthropic_sdk:make_async --provider anthropic
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any

import anthropic
import anthropic._base_client as anthropic_base_client
import httpx2

from conformance.adapters import Httpx2Transport, failed, mock_transport, reraise_replay_mismatch, sdk_sleeps_on
from conformance.capabilities import get_profile
from conformance.exceptions import InputError
from conformance.runtime.protocol import Declaration, TurnRequest
from examples._loop import run as run_async
from examples._offers import NOT_OFFERED, SDK_EXPOSED, dialect_providers
from examples._params import messages_params

VERSION = anthropic.__version__

_STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_use",
    "refusal": "refusal",
}

_ERRORS: list[tuple[type[anthropic.APIStatusError], str]] = [
    (anthropic.BadRequestError, "invalid_request"),
    (anthropic.AuthenticationError, "auth"),
    (anthropic.PermissionDeniedError, "permission"),
    (anthropic.NotFoundError, "not_found"),
    (anthropic.ContentTooLargeError, "payload_too_large"),
    (anthropic.RateLimitError, "rate_limited"),
    (anthropic.OverloadedError, "overloaded"),
    (anthropic.InternalServerError, "server"),
]
"""The SDK's exception classes → normalized error kinds (first match; subclasses listed first)."""


def _error(exc: anthropic.AnthropicError | httpx2.TransportError) -> dict[str, Any]:
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        return {"kind": "timeout", "message": str(exc)}
    if isinstance(exc, anthropic.APIStatusError):
        kind = next((k for cls, k in _ERRORS if isinstance(exc, cls)), "invalid_request")
        out: dict[str, Any] = {"kind": kind, "message": exc.api_message or str(exc)}
        if exc.status_code != 200:  # an `error` event inside a 200 stream carries no HTTP status of its own
            out["status"] = exc.status_code
        if exc.type:
            out["provider_code"] = exc.type
        return out
    return {"kind": "stream_interrupted", "message": str(exc)}


def _block(block: Any) -> dict[str, Any] | None:
    kind = block.type
    if kind == "text":
        return {"type": "text", "text": block.text} if block.text else None
    if kind == "thinking":
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature or None}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    if kind == "tool_use":
        args = block.input if isinstance(block.input, dict) else {}
        return {"type": "tool_call", "id": block.id, "name": block.name, "arguments": args}
    # the provider's own tools (`server_tool_use`, `web_search_tool_result`, …): the SDK keeps each
    # block whole, every field as received
    data = block.to_dict(mode="json")
    call = data.get("id") or data.get("tool_use_id")
    return {"type": "server_tool", "dialect": "anthropic", "name": kind, "id": call, "data": data}


def _message(message: Any) -> dict[str, Any]:
    blocks = [b for b in (_block(x) for x in message.content) if b is not None]
    out: dict[str, Any] = {"role": "assistant", "content": blocks, "provider": "anthropic", "model": message.model}
    if message.stop_reason:
        out["raw_stop_reason"] = message.stop_reason
        if message.stop_reason in _STOP:
            out["stop_reason"] = _STOP[message.stop_reason]
    usage = message.usage
    if usage is not None:
        read, write = usage.cache_read_input_tokens or 0, usage.cache_creation_input_tokens or 0
        out["usage"] = {
            "input_tokens": usage.input_tokens + read + write,
            "output_tokens": usage.output_tokens,
            "cache_read_tokens": read,
            "cache_write_tokens": write,
        }
        # `output_tokens_details.thinking_tokens`: typed in newer SDKs, kept as an extra field before
        details = getattr(usage, "output_tokens_details", None) or (usage.model_extra or {}).get(
            "output_tokens_details"
        )
        thinking = (
            details.get("thinking_tokens") if isinstance(details, dict) else getattr(details, "thinking_tokens", 0)
        )
        if isinstance(thinking, int) and thinking:
            out["usage"]["reasoning_tokens"] = thinking
    return out


def _named(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The SDK's named arguments of `messages.create`, and the rest as its `extra_body`."""
    params = dict(params)
    named: dict[str, Any] = {k: params.pop(k) for k in ("model", "max_tokens", "messages") if k in params}
    named.setdefault("model", "x")
    named.setdefault("max_tokens", 1)
    named.setdefault("messages", [])
    params.pop("stream", None)
    return named, params


ERRORS_CAUGHT = (anthropic.AnthropicError, httpx2.TransportError)
"""What a call raises that is an outcome: a connection that drops while the stream is read reaches
the caller as the httpx2 error itself (the SDK wraps transport errors only while sending)."""


def _failed(exc: anthropic.AnthropicError | httpx2.TransportError, stream: Any) -> dict[str, Any]:
    partial = None
    if stream is not None:
        with contextlib.suppress(AssertionError):  # no `message_start` yet
            partial = _message(stream.current_message_snapshot)
    reraise_replay_mismatch(exc)
    return failed(_error(exc), partial)


def _call(client: anthropic.Anthropic, params: dict[str, Any], stream: bool) -> dict[str, Any]:
    """One Messages request through the SDK → the normalized outcome."""
    named, extra = _named(params)
    manager = None
    try:
        if stream:
            with client.messages.stream(**named, extra_body=extra or None) as manager:
                return {"message": _message(manager.get_final_message())}
        return {"message": _message(client.messages.create(**named, extra_body=extra or None))}
    except ERRORS_CAUGHT as exc:
        return _failed(exc, manager)


async def _acall(client: anthropic.AsyncAnthropic, params: dict[str, Any], stream: bool) -> dict[str, Any]:
    """`_call` through the SDK's async client."""
    named, extra = _named(params)
    manager = None
    try:
        if stream:
            async with client.messages.stream(**named, extra_body=extra or None) as manager:
                return {"message": _message(await manager.get_final_message())}
        return {"message": _message(await client.messages.create(**named, extra_body=extra or None))}
    except ERRORS_CAUGHT as exc:
        return _failed(exc, manager)


def _turn_params(request: TurnRequest) -> tuple[dict[str, Any], bool, int]:
    """The request parameters (the program's own mapping), whether to stream, and `max_retries`."""
    params, stream = messages_params(request.conversation, get_profile(request.provider).default_model)
    attempts = request.settings.get("policy", {}).get("max_attempts", anthropic.DEFAULT_MAX_RETRIES + 1)
    return params, stream, int(attempts) - 1


class AnthropicSdkRuntime:
    name = f"anthropic-sdk {anthropic.__version__}"
    declaration = Declaration(
        name=f"anthropic-sdk {anthropic.__version__}",
        version=VERSION,
        providers=dialect_providers("anthropic"),
        not_offered=NOT_OFFERED,
        exposed_fields=SDK_EXPOSED,
        # `max_retries` is the caller's; a `retry-after` is slept as long as it says ("If the API asks
        # us to wait a certain amount of time, just do what it says"): no ceiling can be given
        policy={"max_attempts": "settable", "max_wait_s": "unavailable"},
    )

    def _check(self, provider: str) -> None:
        if get_profile(provider).dialect != "anthropic":
            raise InputError(f"the anthropic SDK speaks the Messages dialect, not {provider}'s", where="--provider")

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        self._check(provider)
        http = httpx2.Client(transport=mock_transport(status, headers, chunks))
        with anthropic.Anthropic(api_key="replay", max_retries=0, http_client=http) as client:
            return _call(client, {}, stream)

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        self._check(request.provider)
        params, stream, retries = _turn_params(request)
        client = anthropic.Anthropic(
            api_key=request.keys[0],
            base_url=request.base_url.removesuffix("/v1"),  # the SDK's paths start with /v1
            http_client=httpx2.Client(transport=Httpx2Transport(request.transport)),
            max_retries=retries,
        )
        with client, sdk_sleeps_on(request.clock, anthropic_base_client):
            return _call(client, params, stream)


class AsyncAnthropicSdkRuntime(AnthropicSdkRuntime):
    """The same SDK through its async client (`anthropic.AsyncAnthropic`): its async stream, its
    async retry loop (`anyio.sleep`, on the harness clock)."""

    name = f"anthropic-sdk-async {anthropic.__version__}"
    declaration = dataclasses.replace(AnthropicSdkRuntime.declaration, name=name)

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        self._check(provider)

        async def run() -> dict[str, Any]:
            http = httpx2.AsyncClient(transport=mock_transport(status, headers, chunks))
            async with anthropic.AsyncAnthropic(api_key="replay", max_retries=0, http_client=http) as client:
                return await _acall(client, {}, stream)

        return run_async(run())

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        self._check(request.provider)
        params, stream, retries = _turn_params(request)

        async def run() -> dict[str, Any]:
            client = anthropic.AsyncAnthropic(
                api_key=request.keys[0],
                base_url=request.base_url.removesuffix("/v1"),
                http_client=httpx2.AsyncClient(transport=Httpx2Transport(request.transport)),
                max_retries=retries,
            )
            async with client:
                return await _acall(client, params, stream)

        with sdk_sleeps_on(request.clock, anthropic_base_client):
            return asyncio.run(run())


def make() -> AnthropicSdkRuntime:
    return AnthropicSdkRuntime()


def make_async() -> AsyncAnthropicSdkRuntime:
    return AsyncAnthropicSdkRuntime()
