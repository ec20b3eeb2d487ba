"""Google's official `google-genai` SDK as a runtime under test (the Gemini API and Vertex AI columns).

Configured as the SDK's docs tell a user: `genai.Client(api_key=…)` for the Gemini API,
`genai.Client(vertexai=True, project=…, location=…, credentials=…)` for Vertex AI, both with
`http_options=HttpOptions(base_url=…, httpx_async_client=…)`; calls go through the SDK's async
client (`client.aio.models.generate_content` / `generate_content_stream`).

- `decode`: the recorded response is served to the SDK's own `httpx` async client, streamed in the
  row's chunks (`conformance.adapters.httpx_transport`); the SDK's `GenerateContentResponse` objects
  — or the `errors.APIError` it raises — are mapped to the normalized form, every field the SDK
  keeps: text and thought parts with their `thought_signature`, function calls (id, args, signature),
  code execution parts, `finish_reason`, `usage_metadata`, `prompt_feedback.block_reason`,
  `model_version`.
- `turn`: the SDK sends the request itself through the harness's transport, with its own retry
  loop (`HttpOptions.retry_options`, tenacity) waiting on the harness clock. The SDK takes
  `contents` and a `GenerateContentConfig`: the conversation's text turns and tool calls are
  handed over as the SDK's types.

Versions covered: google-genai 1.x to 3.x (`HttpOptions.httpx_async_client` appeared in 1.21;
earlier releases end with a one-line error).

    conformance run --runtime examples.google_genai_runtime:make --provider gemini --provider vertex
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import ssl
from typing import Any

import certifi
import httpx

from conformance.adapters import conversation_parts, failed, httpx_transport, sdk_sleeps_on, text_of
from conformance.capabilities import get_profile
from conformance.exceptions import InputError
from conformance.runtime.protocol import Declaration, TurnRequest
from examples._offers import NOT_OFFERED, SDK_EXPOSED, dialect_providers
from examples._supported import require_version

genai, VERSION = require_version("google-genai", "google.genai", minimum=(1, 21))
from google.genai import _api_client as genai_api_client  # noqa: E402
from google.genai import errors, types  # noqa: E402

FINISH: dict[str, str] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "MODEL_ARMOR": "content_filter",
}
"""The SDK's `FinishReason` values → stop reasons (any other ends in `error`: the answer did not end normally)."""

STATUS: dict[str, str] = {
    "INVALID_ARGUMENT": "invalid_request",
    "FAILED_PRECONDITION": "invalid_request",
    "OUT_OF_RANGE": "invalid_request",
    "UNAUTHENTICATED": "auth",
    "PERMISSION_DENIED": "permission",
    "NOT_FOUND": "not_found",
    "RESOURCE_EXHAUSTED": "rate_limited",
    "UNAVAILABLE": "overloaded",
    "DEADLINE_EXCEEDED": "timeout",
    "INTERNAL": "server",
}
"""`APIError.status` (the google.rpc status name the SDK keeps) → error kind; else by HTTP code."""

REASONS: dict[str, str] = {
    "API_KEY_INVALID": "auth",
    "API_KEY_EXPIRED": "auth",
    "ACCESS_TOKEN_EXPIRED": "auth",
    "API_KEY_SERVICE_BLOCKED": "permission",
    "SERVICE_DISABLED": "permission",
    "CONSUMER_SUSPENDED": "permission",
    "RATE_LIMIT_EXCEEDED": "rate_limited",
}
"""`ErrorInfo.reason` in the error body the SDK keeps (`APIError.details`) → kind; wins over the status
name (an invalid key is 400 INVALID_ARGUMENT with reason API_KEY_INVALID)."""

BY_CODE = {400: "invalid_request", 401: "auth", 403: "permission", 404: "not_found", 413: "payload_too_large"}
BY_CODE |= {429: "rate_limited", 503: "overloaded", 504: "timeout"}

SERVER_PARTS = ("executable_code", "code_execution_result", "tool_call", "tool_response")
"""Part fields holding work Google's own tools did; the wire name is the camelCase form."""

PROVIDERS = dialect_providers("gemini")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


def _signature(part: Any) -> str | None:
    sig = getattr(part, "thought_signature", None)
    return base64.b64encode(sig).decode("ascii") if isinstance(sig, bytes) else None


def _usage(meta: Any) -> dict[str, int]:
    thoughts = meta.thoughts_token_count or 0
    return {
        "input_tokens": meta.prompt_token_count or 0,
        "output_tokens": (meta.candidates_token_count or 0) + thoughts,
        "cache_read_tokens": meta.cached_content_token_count or 0,
        "reasoning_tokens": thoughts,
    }


class _Reader:
    """The SDK's response objects (one, or the chunks of a stream) → one normalized message."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.content: list[dict[str, Any]] = []
        self.raw_finish: str | None = None
        self.blocked: str | None = None
        self.model: str | None = None
        self.usage: dict[str, int] | None = None
        self.seen = False
        self._run: str | None = None

    def response(self, response: types.GenerateContentResponse) -> None:
        self.seen = True
        self.model = response.model_version or self.model
        if response.usage_metadata is not None:
            self.usage = _usage(response.usage_metadata)
        candidate = response.candidates[0] if response.candidates else None
        if candidate is None:
            feedback = response.prompt_feedback
            if feedback is not None and feedback.block_reason is not None:
                self.blocked = str(getattr(feedback.block_reason, "value", feedback.block_reason))
            return
        for part in (candidate.content.parts if candidate.content else None) or []:
            self._part(part)
        if candidate.finish_reason is not None:
            self.raw_finish = str(getattr(candidate.finish_reason, "value", candidate.finish_reason))

    def _part(self, part: types.Part) -> None:
        signature = _signature(part)
        if part.function_call is not None:
            self._run = None
            call = part.function_call
            block: dict[str, Any] = {"type": "tool_call", "id": call.id or f"call_{self._calls() + 1}"}
            block |= {"name": call.name or "", "arguments": dict(call.args or {})}
            if signature is not None:
                block["signature"] = signature
            self.content.append(block)
            return
        server = next((f for f in SERVER_PARTS if getattr(part, f, None) is not None), None)
        if server is not None and part.text is None:
            self._run = None
            data = part.model_dump(mode="json", by_alias=True, exclude_none=True)
            if signature is not None:  # bytes in the SDK: the wire's base64 again
                data["thoughtSignature"] = signature
            inner = data.get(_camel(server), {})
            self.content.append(
                {
                    "type": "server_tool",
                    "dialect": "gemini",
                    "name": _camel(server),
                    "id": inner.get("id"),
                    "status": inner.get("outcome"),
                    "data": data,
                }
            )
            return
        text = part.text or ""
        if not text and signature is None:
            return
        kind = "thinking" if part.thought else "text"
        field = "thinking" if kind == "thinking" else "text"
        if text and self._run == kind and self.content:
            self.content[-1][field] += text
            if signature is not None:
                self.content[-1]["signature"] = signature
        else:
            block = {"type": kind, field: text}
            if signature is not None:
                block["signature"] = signature
            self.content.append(block)
        self._run = None if signature is not None else kind

    def _calls(self) -> int:
        return sum(1 for b in self.content if b["type"] == "tool_call")

    def message(self) -> dict[str, Any] | None:
        if not self.seen:
            return None
        content = [b for b in self.content if b["type"] == "thinking"] + [
            b for b in self.content if b["type"] != "thinking"
        ]
        out: dict[str, Any] = {"role": "assistant", "content": content, "provider": self.provider}
        if self.model:
            out["model"] = self.model
        if self.raw_finish is not None:
            stop = FINISH.get(self.raw_finish, "error")
            out["stop_reason"] = "tool_use" if stop == "stop" and self._calls() else stop
            out["raw_stop_reason"] = self.raw_finish
        elif self.blocked is not None:
            out["stop_reason"], out["raw_stop_reason"] = "content_filter", self.blocked
        if self.usage is not None:
            out["usage"] = self.usage
        return out


def _error(exc: Exception) -> dict[str, Any]:
    if isinstance(exc, errors.APIError):
        status_name = exc.status if isinstance(exc.status, str) else None
        code = exc.code if isinstance(exc.code, int) else None
        body = exc.details.get("error") if isinstance(exc.details, dict) else None
        items = (body.get("details") if isinstance(body, dict) else None) or []
        reasons = [d["reason"] for d in items if isinstance(d, dict) and isinstance(d.get("reason"), str)]
        reason = next((r for r in reasons if r in REASONS), None)
        kind = (
            REASONS.get(reason or "")
            or STATUS.get(status_name or "")
            or BY_CODE.get(code or 0)
            or ("server" if (code or 0) >= 500 else "invalid_request")
        )
        out: dict[str, Any] = {"kind": kind, "message": str(exc.message or exc)}
        if code is not None and code >= 400:
            out["status"] = code
        if reason or status_name:
            out["provider_code"] = reason or status_name
        return out
    if isinstance(exc, httpx.TimeoutException):
        return {"kind": "timeout", "message": str(exc)}
    return {"kind": "stream_interrupted", "message": str(exc) or type(exc).__name__}


def _contents(conversation: dict[str, Any] | None) -> tuple[list[types.Content], types.GenerateContentConfig]:
    """CONVERSATION.json → the SDK's `contents` and config (text, tool calls and their results)."""
    if not conversation:
        return [types.Content(role="user", parts=[types.Part(text="hi")])], types.GenerateContentConfig()
    messages, options, _ = conversation_parts(conversation)
    system: list[str] = []
    contents: list[types.Content] = []
    for msg in messages:
        role, content = msg.get("role"), msg.get("content", "")
        if role == "system":
            system.append(text_of(content))
        elif role == "user":
            contents.append(types.Content(role="user", parts=[types.Part(text=text_of(content))]))
        elif role == "assistant":
            parts: list[types.Part] = []
            for block in content if isinstance(content, list) else [{"type": "text", "text": content}]:
                sig = block.get("signature")
                signature = base64.b64decode(sig) if isinstance(sig, str) else None
                if block.get("type") in ("text", "thinking"):
                    text = block.get("text", block.get("thinking", ""))
                    thought = block.get("type") == "thinking" or None
                    parts.append(types.Part(text=text, thought=thought, thought_signature=signature))
                elif block.get("type") == "tool_call":
                    call = types.FunctionCall(id=block.get("id"), name=block.get("name"), args=block.get("arguments"))
                    parts.append(types.Part(function_call=call, thought_signature=signature))
            contents.append(types.Content(role="model", parts=parts))
        elif role == "tool_result":
            answer = types.FunctionResponse(
                id=msg.get("tool_call_id"), name=msg.get("tool_name"), response={"result": text_of(content)}
            )
            contents.append(types.Content(role="user", parts=[types.Part(function_response=answer)]))
    tools = [
        types.Tool(
            function_declarations=[
                types.FunctionDeclaration(
                    name=t["name"], description=t.get("description"), parameters_json_schema=t.get("parameters")
                )
                for t in conversation.get("tools") or []
            ]
        )
    ]
    config = types.GenerateContentConfig(
        system_instruction="\n".join(system) or None,
        max_output_tokens=options.get("max_tokens"),
        temperature=options.get("temperature"),
        tools=tools if tools[0].function_declarations else None,
    )
    return contents, config


@functools.cache
def _idle_clients() -> dict[str, Any]:
    """`HttpOptions` fields for the clients the SDK builds per `genai.Client` and the adapter never
    sends through (it calls `client.aio` with the httpx client it passes): a sync client, and the TLS
    context of the Live API's websockets, each built once as the SDK builds them (certifi's roots)
    instead of a TLS context each per row."""
    tls = ssl.create_default_context(cafile=certifi.where())
    return {"httpx_client": httpx.Client(verify=tls), "async_client_args": {"ssl": tls}}


def _client(provider: str, key: str, base_url: str, http: httpx.AsyncClient, attempts: int = 1) -> Any:
    retry = types.HttpRetryOptions(attempts=attempts) if attempts > 1 else None
    if get_profile(provider).auth_style == "bearer":  # Vertex AI: project, location, OAuth credentials
        from google.oauth2.credentials import Credentials

        root = base_url.split("/v1/")[0]
        options = types.HttpOptions(
            base_url=root + "/", api_version="v1", httpx_async_client=http, retry_options=retry, **_idle_clients()
        )
        return genai.Client(
            vertexai=True,
            project="my-project",
            location="global",
            credentials=Credentials(token=key),
            http_options=options,
        )
    options = types.HttpOptions(
        base_url=base_url.removesuffix("/v1beta") + "/", httpx_async_client=http, retry_options=retry, **_idle_clients()
    )
    return genai.Client(api_key=key, http_options=options)


async def _call(
    client: Any, provider: str, model: str, conversation: dict[str, Any] | None, stream: bool
) -> dict[str, Any]:
    contents, config = _contents(conversation)
    reader = _Reader(provider)
    try:
        if stream:
            async for chunk in await client.aio.models.generate_content_stream(
                model=model, contents=contents, config=config
            ):
                reader.response(chunk)
            message = reader.message()
            if message is None or "stop_reason" not in message:
                return failed({"kind": "stream_interrupted", "message": "the stream ended without a finish"}, message)
            return {"message": message}
        reader.response(await client.aio.models.generate_content(model=model, contents=contents, config=config))
        return {"message": reader.message()}
    except (errors.APIError, httpx.HTTPError, json.JSONDecodeError, ValueError) as exc:
        return failed(_error(exc), reader.message())


class GoogleGenaiRuntime:
    name = f"google-genai {VERSION}"
    declaration = Declaration(
        name=f"google-genai {VERSION}",
        version=VERSION,
        providers=PROVIDERS,
        not_offered=NOT_OFFERED,
        exposed_fields=SDK_EXPOSED,
    )

    def _check(self, provider: str) -> None:
        if provider not in PROVIDERS:
            raise InputError(
                f"google-genai speaks the Gemini dialect (gemini, vertex), not {provider}'s", where="--provider"
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
        self._check(provider)
        profile = get_profile(provider)

        async def run() -> dict[str, Any]:
            async with httpx.AsyncClient(transport=httpx_transport(status, headers, chunks)) as http:
                client = _client(provider, "replay", profile.base_url, http)
                return await _call(client, provider, model or profile.default_model, conversation, stream)

        return asyncio.run(run())

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        self._check(request.provider)
        profile = get_profile(request.provider)
        model = str(request.conversation.get("model") or profile.default_model)
        stream = bool((request.conversation.get("options") or {}).get("stream"))
        attempts = int(request.settings.get("policy", {}).get("max_attempts", 1))

        async def run() -> dict[str, Any]:
            async with httpx.AsyncClient(transport=request.transport, timeout=600.0) as http:
                client = _client(request.provider, request.keys[0], request.base_url, http, attempts)
                return await _call(client, request.provider, model, request.conversation, stream)

        with sdk_sleeps_on(request.clock, genai_api_client):
            return asyncio.run(run())


def make() -> GoogleGenaiRuntime:
    return GoogleGenaiRuntime()
