"""An adapter that puts the official `openai` SDK's response parsing under test.

The runtime protocol (`conformance.runtime.protocol`) is a set of JSON-in/JSON-out capabilities,
each optional. This adapter answers `decode` alone, for the OpenAI Chat Completions dialect, with
what the `openai` SDK makes of the bytes (non-streaming: `chat.completions.create`; streaming: its
`ChatCompletionStreamState` accumulator), mapped to the normalized form. The SDK builds no request
from a conversation and repairs no history, so those rows are `skipped` — never filled in by
another runtime. It declares the one provider it reads. Run the OpenAI column against it:

    conformance run --runtime examples.sdk_runtime:make --provider openai

Cells where the SDK's reading differs from the contract show up as failures with their diff
(for example, it reports no error for a stream cut off before `finish_reason`). An adapter for
your own runtime has the same shape: call your decoder in `decode`, and add `encode` or `repair`
only where your runtime has a request builder or a history repair of its own.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai
from openai.lib.streaming.chat import ChatCompletionStreamState

from conformance.adapters import mock_transport
from conformance.runtime.protocol import Declaration
from examples.openai_sdk import ERRORS  # the SDK's exception classes → error kinds

_STOP = {"stop": "stop", "length": "length", "tool_calls": "tool_use", "content_filter": "content_filter"}


def _client(status: int, headers: dict[str, str], chunks: list[bytes]) -> openai.OpenAI:
    # the recorded answer, its body streamed in the row's chunks (each one read of the SDK's decoder)
    transport = mock_transport(status, headers, chunks)
    return openai.OpenAI(api_key="example", max_retries=0, http_client=httpx2.Client(transport=transport))


def _message(completion: Any) -> dict[str, Any]:
    choice = completion.choices[0]
    msg = choice.message
    content: list[dict[str, Any]] = []
    if msg.content:
        content.append({"type": "text", "text": msg.content})
    for call in msg.tool_calls or []:
        try:
            args = json.loads(call.function.arguments or "{}")
        except ValueError:
            args = None
        block: dict[str, Any] = {"type": "tool_call", "id": call.id, "name": call.function.name}
        block["arguments"] = args if isinstance(args, dict) else {}
        if not isinstance(args, dict):
            block["raw_arguments"] = call.function.arguments
        content.append(block)
    out: dict[str, Any] = {"role": "assistant", "content": content, "provider": "openai", "model": completion.model}
    if choice.finish_reason:
        out["stop_reason"] = _STOP.get(choice.finish_reason, "stop")
        out["raw_stop_reason"] = choice.finish_reason
    if completion.usage is not None:
        details = completion.usage.prompt_tokens_details
        reasoning = completion.usage.completion_tokens_details
        out["usage"] = {
            "input_tokens": completion.usage.prompt_tokens,
            "output_tokens": completion.usage.completion_tokens,
            "cache_read_tokens": (details.cached_tokens or 0) if details else 0,
            "reasoning_tokens": (reasoning.reasoning_tokens or 0) if reasoning else 0,
        }
    return out


class SdkRuntime:
    name = "openai-sdk (example adapter)"

    declaration = Declaration(
        name=name, version=openai.__version__, providers=frozenset({"openai"}), exposed_fields=None
    )

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        with _client(status, headers, chunks) as client:
            try:
                if stream:
                    state = ChatCompletionStreamState()
                    for chunk in client.chat.completions.create(model="x", messages=[], stream=True):
                        state.handle_chunk(chunk)
                    return {"message": _message(state.current_completion_snapshot)}
                return {"message": _message(client.chat.completions.create(model="x", messages=[]))}
            except openai.APIStatusError as exc:  # the SDK's class says what kind of error it is
                body = exc.body if isinstance(exc.body, dict) else {}
                kind = next((k for cls, k in ERRORS if isinstance(exc, cls)), "invalid_request")
                error = {"kind": kind, "status": exc.status_code, "message": str(body.get("message", ""))}
                return {"error": error, "partial": None}


def make() -> SdkRuntime:
    return SdkRuntime()
