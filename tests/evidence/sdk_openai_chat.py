"""What the official `openai` SDK makes of the same Chat Completions bytes, fed offline.

The SDK (3.x) talks through `httpx2`; a `MockTransport` answers with the recorded status, headers
and body. Streams are accumulated with the SDK's own `ChatCompletionStreamState`.

Where the SDK is known to differ by design it is normalized before comparing, or the case is
reported as `sdk-known`: the accumulator concatenates an `id`/`name` repeated on every delta
(some gateways repeat them), and a later `"usage": null` chunk leaves the SDK without usage.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from typing import Any

import httpx2
import openai
from openai.lib.streaming.chat import ChatCompletionStreamState

from tests.evidence.once import once_per_response
from tests.evidence.summary import Summary

UNLISTED = "unlisted:"
"""Prefix of `Summary.stop` for a `finish_reason` outside OpenAI's documented values (e.g. `""`):
the SDK has no normalized reading of it, only that the response finished."""

_STOP: dict[str, str] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "content_filter",
    "error": "error",
}


def openai_client(status: int, headers: Mapping[str, str], body: bytes) -> openai.OpenAI:
    """An `openai` client whose every request is answered offline with these bytes."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, headers=list(headers.items()), content=body, request=request)

    return openai.OpenAI(
        api_key="test", max_retries=0, http_client=httpx2.Client(transport=httpx2.MockTransport(handler))
    )


def arguments_object(text: str | None) -> dict[str, Any]:
    """Tool-call arguments as the SDK leaves them (a JSON string) read as an object; {} otherwise."""
    if not text or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class SDKCannotRead(Exception):
    """The SDK raised while reading bytes that our decoder reads (e.g. a gateway's extra fields)."""


@once_per_response(SDKCannotRead)
def sdk_completion(status: int, headers: Mapping[str, str], body: bytes, stream: bool) -> Any | None:
    """The SDK's completion (for a stream: the accumulated snapshot); None when the SDK reports an
    API error. Read once per response (`tests/evidence/once.py`): the completion is shared, read-only."""
    with openai_client(status, headers, body) as client:
        try:
            if stream:
                state = ChatCompletionStreamState()
                for chunk in client.chat.completions.create(model="replay", messages=[], stream=True):
                    state.handle_chunk(chunk)
                return state.current_completion_snapshot  # the accumulated message, unparsed
            return client.chat.completions.create(model="replay", messages=[])
        except openai.APIError:
            return None
        except (KeyError, RuntimeError, TypeError, ValueError) as exc:
            raise SDKCannotRead(f"{type(exc).__name__}: {str(exc)[:120]}") from exc


def _text(content: Any) -> str:
    """The SDK types `content` as a string; gateways also send typed parts (Mistral)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict) and "type" not in content:
        # a content object (Cloudflare's json_schema answer): the SDK hands over the dict as sent;
        # its compact JSON is the same answer as text
        return json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    parts = content if isinstance(content, list) else [content]
    return "".join(p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type", "text") == "text")


def summarize(completion: Any) -> Summary:
    choice = completion.choices[0] if completion.choices else None
    message = choice.message if choice is not None else None
    text = (_text(message.content) + (message.refusal or "")) if message is not None else ""
    calls = [
        (c.function.name, arguments_object(c.function.arguments))
        for c in ((message.tool_calls or []) if message is not None else [])
        if getattr(c, "function", None) is not None
    ]
    legacy = getattr(message, "function_call", None) if message is not None else None
    if legacy is not None and legacy.name:  # the deprecated functions API, which the SDK still parses
        calls.append((legacy.name, arguments_object(legacy.arguments)))
    raw = choice.finish_reason if choice is not None else None
    stop = (_STOP.get(raw) or f"{UNLISTED}{raw}") if raw is not None else None
    if stop == "stop" and message is not None and message.refusal:
        stop = "refusal"
    usage = completion.usage
    return Summary(
        text=text,
        tool_calls=calls,
        input_tokens=usage.prompt_tokens if usage is not None else None,
        output_tokens=usage.completion_tokens if usage is not None else None,
        stop=stop,
    )


def sdk_summary(status: int, headers: Mapping[str, str], body: bytes, stream: bool) -> Summary | None:
    """The SDK's reading of one response; None when the SDK reports an API error instead."""
    with warnings.catch_warnings():
        # The SDK warns when a gateway's typed content does not fit its string type; that is the
        # SDK describing itself, not a finding.
        warnings.simplefilter("ignore")
        completion = sdk_completion(status, headers, body, stream)
        return None if completion is None else summarize(completion)
