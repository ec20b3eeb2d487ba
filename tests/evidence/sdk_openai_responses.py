"""What the official `openai` SDK makes of the same Responses bytes, fed offline.

A `MockTransport` answers with the recorded status, headers and body; streams are accumulated
with the SDK's own `ResponseStreamState` (the accumulator behind `client.responses.stream`).

The SDK has no stop reason for a response, only `status` and `incomplete_details`; the summary
reads them the way the API reference describes them (a completed response with function calls
ended for the tool, an incomplete one for its `incomplete_details.reason`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import openai
from openai._types import omit
from openai.lib.streaming.responses import ResponseStreamState

from tests.evidence.once import once_per_response
from tests.evidence.sdk_openai_chat import SDKCannotRead, arguments_object, openai_client
from tests.evidence.summary import ServerTool, Summary

_CLIENT_ITEMS = frozenset({"message", "function_call", "custom_tool_call", "reasoning"})
"""Output items the summary reads as text, calls and reasoning; every other item is the work of a
built-in tool (`web_search_call`, `mcp_call`, …)."""
_INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}
_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


@once_per_response(SDKCannotRead)
def sdk_response(status: int, headers: Mapping[str, str], body: bytes, stream: bool) -> Any | None:
    """The SDK's response object (for a stream: the accumulated snapshot at its terminal event, or
    at the end of a cut stream); None when the SDK reports an API error. Read once per response
    (`tests/evidence/once.py`): the response is shared, read-only."""
    with openai_client(status, headers, body) as client:
        try:
            if not stream:
                return client.responses.create(model="replay", input="replay")
            state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
            final = None
            for event in client.responses.create(model="replay", input="replay", stream=True):
                for out in state.handle_event(event):
                    if out.type in _TERMINAL:
                        final = out.response
            return final if final is not None else state._ResponseStreamState__current_snapshot  # type: ignore[attr-defined]
        except openai.APIError:
            return None
        except (AssertionError, KeyError, RuntimeError, TypeError, ValueError, AttributeError) as exc:
            raise SDKCannotRead(f"{type(exc).__name__}: {str(exc)[:120]}") from exc


def summarize(response: Any) -> Summary:
    text, calls, refused = "", [], False
    server_tools: list[ServerTool] = []
    for item in response.output or []:
        if item.type not in _CLIENT_ITEMS:
            data = item.to_dict(mode="json")
            server_tools.append((item.type, data.get("id"), data.get("status"), data))
        if item.type == "message":
            for part in item.content or []:
                if part.type == "output_text":
                    text += part.text
                elif part.type == "refusal":
                    text += part.refusal
                    refused = True
        elif item.type == "function_call":
            calls.append((item.name, arguments_object(item.arguments)))
    status = getattr(response, "status", None)
    stop: str | None = None
    if status == "completed":
        stop = "tool_use" if calls else ("refusal" if refused else "stop")
    elif status == "incomplete":
        details = response.incomplete_details
        stop = _INCOMPLETE.get(getattr(details, "reason", None) or "", "length")
    elif status in ("failed", "cancelled"):
        stop = "error"
    usage = response.usage
    return Summary(
        text=text,
        tool_calls=calls,
        input_tokens=usage.input_tokens if usage is not None else None,
        output_tokens=usage.output_tokens if usage is not None else None,
        stop=stop,
        server_tools=server_tools,
    )


def sdk_summary(status: int, headers: Mapping[str, str], body: bytes, stream: bool) -> Summary | None:
    """The SDK's reading of one response; None when the SDK reports an API error instead."""
    response = sdk_response(status, headers, body, stream)
    return None if response is None else summarize(response)
