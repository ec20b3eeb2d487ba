"""What the official google-genai SDK makes of a recorded Gemini response, as a `Summary`.

The SDK parses each response object into `types.GenerateContentResponse` (through its own
wire-to-SDK conversion, which drops fields it does not know) but has no stream
accumulator, so a stream is summarized as the concatenation of its chunks' texts and function
calls with the last `usageMetadata` and finish reason. Stop reasons are normalized here with the
wire reference's table (§7), independently of the codec.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from google.genai import models, types

from tests.evidence.summary import ServerTool, Summary

_STOP = {"STOP": "stop", "MAX_TOKENS": "length"}
_FILTER = {
    "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR",
}  # fmt: skip
_NUMBERED = {0: "FINISH_REASON_UNSPECIFIED", 1: "STOP", 2: "MAX_TOKENS", 3: "SAFETY", 4: "RECITATION"}
"""Proto numbers of `finishReason` that both Google APIs share. The SDK only reads names; a body
asked with `enum-encoding=int` (Google's Go client) is given to it with these numbers named."""


def _named(obj: dict[str, Any]) -> dict[str, Any]:
    candidates = obj.get("candidates")
    if not isinstance(candidates, list):
        return obj
    fixed = [
        {**c, "finishReason": _NUMBERED.get(c["finishReason"], "OTHER")}
        if isinstance(c, dict) and isinstance(c.get("finishReason"), int)
        else c
        for c in candidates
    ]
    usage = obj.get("usageMetadata")
    numbered = any(
        isinstance(d, dict) and isinstance(d.get("modality"), int)
        for v in (usage or {}).values()
        if isinstance(v, list)
        for d in v
    )
    if isinstance(usage, dict) and (fixed != candidates or numbered):  # per-modality details: numbered modalities
        usage = {k: v for k, v in usage.items() if not k.endswith("Details") and k != "trafficType"}
        return {**obj, "candidates": fixed, "usageMetadata": usage}
    return {**obj, "candidates": fixed}


def _objects(body: bytes, stream: bool) -> list[Any]:
    text = body.decode("utf-8")
    if stream and text.lstrip().startswith("data:"):
        values: list[Any] = []
        for line in text.splitlines():
            if line.startswith("data:"):
                try:
                    values.append(orjson.loads(line[5:]))
                except orjson.JSONDecodeError:
                    break  # a cut final event: the SDK stops there too
        return values
    value = orjson.loads(text)
    return value if isinstance(value, list) else [value]


def _parse(obj: dict[str, Any]) -> types.GenerateContentResponse:
    """The SDK's own path for a Developer-API body: wire → SDK dict, unknown fields dropped."""
    as_sdk = models._GenerateContentResponse_from_mldev(obj)
    return types.GenerateContentResponse._from_response(response=as_sdk, kwargs={})


def sdk_summary(status: int, headers: Mapping[str, str], body: bytes, stream: bool) -> Summary | None:
    """None for an HTTP error (the SDK raises; there is no message to compare)."""
    del headers
    if status >= 400:
        return None
    text: list[str] = []
    calls: list[tuple[str, dict[str, Any]]] = []
    servers: list[ServerTool] = []
    usage: types.GenerateContentResponseUsageMetadata | None = None
    finish: str | None = None
    blocked = False
    for obj in _objects(body, stream):
        if not isinstance(obj, dict) or "error" in obj:
            break
        response = _parse(_named(obj))
        usage = response.usage_metadata or usage
        if not response.candidates:
            blocked = blocked or bool(response.prompt_feedback and response.prompt_feedback.block_reason)
            continue
        candidate = response.candidates[0]
        for part in (candidate.content.parts if candidate.content else None) or []:
            if part.text is not None and not part.thought:
                text.append(part.text)
            if part.function_call is not None:
                calls.append((part.function_call.name or "", dict(part.function_call.args or {})))
            servers += _server_tools(part)
        if candidate.finish_reason is not None:
            finish = candidate.finish_reason.value
    stop: str | None
    if finish is None:
        stop = "content_filter" if blocked else None
    elif finish == "STOP" and calls:
        stop = "tool_use"
    else:
        stop = _STOP.get(finish) or ("content_filter" if finish in _FILTER else "error")
    return Summary(
        text="".join(text),
        tool_calls=calls,
        input_tokens=None if usage is None else usage.prompt_token_count or 0,
        output_tokens=None
        if usage is None
        else (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0),
        stop=stop,
        server_tools=servers,
    )


SERVER_PARTS = {
    "executable_code": "executableCode",
    "code_execution_result": "codeExecutionResult",
    "tool_call": "toolCall",
    "tool_response": "toolResponse",
}
"""The SDK's `Part` field → the wire part kind of work Google's own tools did."""


def _server_tools(part: types.Part) -> list[ServerTool]:
    """The SDK's reading of a server-side part: kind, id, outcome, the inner object and the
    signature (bytes, as the SDK decodes it from base64)."""
    out: list[ServerTool] = []
    for field, kind in SERVER_PARTS.items():
        inner = getattr(part, field)
        if inner is None:
            continue
        outcome = getattr(inner, "outcome", None)
        out.append(
            (
                kind,
                getattr(inner, "id", None),
                outcome.value if outcome is not None else None,
                {
                    "inner": inner.model_dump(mode="json", by_alias=True, exclude_none=True),
                    "signature": part.thought_signature,
                },
            )
        )
    return out
