#!/usr/bin/env python3
r"""server_tool_web_search_stream[anthropic]: litellm 1.110.2, standalone.

Needs only the library the row ran (litellm 1.110.2) and Python 3.10+, nothing of the project that wrote it.
    python THIS_FILE.py            exit 0: the library gives the expected value; 1: it does not
    python THIS_FILE.py --got      print what the library gives at each checked path (JSON)

The row (decode check), as `conformance run --runtime examples.litellm_runtime:make --provider anthropic
--scenario server_tool_web_search_stream --show-diff` shows it (fail):
    ~ message.content[2].text: expected "Ruby 3.4.0 was released on ", got "Ruby 3.4.0 was released on December 25, 2024."
    - message.content[3]: {"type": "text", "text": "December 25, 2024"} (missing)
    - message.content[4]: {"type": "text", "text": "."} (missing)

Rule source:
    https://github.com/anthropics/anthropic-sdk-python/blob/009b035305e0724ce108ebd796935f91711fc6e1/src/anthropic/types/raw_content_block_start_event.py — "ServerToolUseBlock, WebSearchToolResultBlock," ; https://github.com/anthropics/anthropic-sdk-python/blob/009b035305e0724ce108ebd796935f91711fc6e1/src/anthropic/types/raw_content_block_start_event.py — "class RawContentBlockStartEvent(BaseModel): content_block: ContentBlock"
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
RECORDED = json.loads(r'''{"status": 200, "headers": {"content-type": "text/event-stream; charset=utf-8", "date": "Mon, 23 Nov 2026 12:00:00 GMT", "request-id": "req_011CfA2nR8t0MsU5wXy9ZcPa", "anthropic-ratelimit-input-tokens-limit": "2000000", "anthropic-ratelimit-input-tokens-remaining": "2000000", "anthropic-ratelimit-output-tokens-limit": "400000", "anthropic-ratelimit-output-tokens-remaining": "400000", "anthropic-ratelimit-requests-limit": "4000", "anthropic-ratelimit-requests-remaining": "3999", "server": "cloudflare", "content-length": "3835"}, "chunks": ["ZXZlbnQ6IG1lc3NhZ2Vfc3RhcnQKZGF0YTogeyJ0eXBlIjoibWVzc2FnZV9zdGFydCIsIm1lc3NhZ2UiOnsiaWQiOiJtc2dfMDFOaDV1UThadFcyeVJiQzZwWHZKM2tEIiwidHlwZSI6Im1lc3NhZ2UiLCJyb2xlIjoiYXNzaXN0YW50IiwibW9kZWwiOiJjbGF1ZGUtc29ubmV0LTQtNS0yMDI1MDkyOSIsImNvbnRlbnQiOltdLCJzdG9wX3JlYXNvbiI6bnVsbCwic3RvcF9zZXF1ZW5jZSI6bnVsbCwidXNhZ2UiOnsiaW5wdXRfdG9rZW5zIjoyMjE3LCJjYWNoZV9jcmVhdGlvbl9pbnB1dF90b2tlbnMiOjAsImNhY2hlX3JlYWRfaW5wdXRfdG9rZW5zIjowLCJjYWNoZV9jcmVhdGlvbiI6eyJlcGhlbWVyYWxfNW1faW5wdXRfdG9rZW5zIjowLCJlcGhlbWVyYWxfMWhfaW5wdXRfdG9rZW5zIjowfSwib3V0cHV0X3Rva2VucyI6Mywic2VydmljZV90aWVyIjoic3RhbmRhcmQifX19CgpldmVudDogY29udGVudF9ibG9ja19zdGFydApkYXRhOiB7InR5cGUiOiJjb250ZW50X2Jsb2NrX3N0YXJ0IiwiaW5kZXgiOjAsImNvbnRlbnRfYmxvY2siOnsidHlwZSI6InNlcnZlcl90b29sX3VzZSIsImlkIjoic3J2dG9vbHVfMDFLcTdiVngzbkQ5d1RmWWMyTG1SejRQIiwibmFtZSI6IndlYl9zZWFyY2giLCJpbnB1dCI6e319fQoKZXZlbnQ6IHBpbmcKZGF0YTogeyJ0eXBlIjoicGluZyJ9CgpldmVudDogY29udGVudF9ibG9ja19kZWx0YQpkYXRhOiB7InR5cGUiOiJjb250ZW50X2Jsb2NrX2RlbHRhIiwiaW5kZXgiOjAsImRlbHRhIjp7InR5cGUiOiJpbnB1dF9qc29uX2RlbHRhIiwicGFydGlhbF9qc29uIjoie1wicXVlcnkifX0KCmV2ZW50OiBjb250ZW50X2Jsb2NrX2RlbHRhCmRhdGE6IHsidHlwZSI6ImNvbnRlbnRfYmxvY2tfZGVsdGEiLCJpbmRleCI6MCwiZGVsdGEiOnsidHlwZSI6ImlucHV0X2pzb25fZGVsdGEiLCJwYXJ0aWFsX2pzb24iOiJcIjogXCJSdWJ5IDMuNC4wIHJlbGUifX0KCmV2ZW50OiBjb250ZW50X2Jsb2NrX2RlbHRhCmRhdGE6IHsidHlwZSI6ImNvbnRlbnRfYmxvY2tfZGVsdGEiLCJpbmRleCI6MCwiZGVsdGEiOnsidHlwZSI6ImlucHV0X2pzb25fZGVsdGEiLCJwYXJ0aWFsX2pzb24iOiJhc2UgZGF0ZVwifSJ9fQoKZXZlbnQ6IGNvbnRlbnRfYmxvY2tfc3RvcApkYXRhOiB7InR5cGUiOiJjb250ZW50X2Jsb2NrX3N0b3AiLCJpbmRleCI6MH0KCmV2ZW50OiBjb250ZW50X2Jsb2NrX3N0YXJ0CmRhdGE6IHsidHlwZSI6ImNvbnRlbnRfYmxvY2tfc3RhcnQiLCJpbmRleCI6MSwiY29udGVudF9ibG9jayI6eyJ0eXBlIjoid2ViX3NlYXJjaF90b29sX3Jlc3VsdCIsInRvb2xfdXNlX2lkIjoic3J2dG9vbHVfMDFLcTdiVngzbkQ5d1RmWWMyTG1SejRQIiwiY29udGVudCI6W3sidHlwZSI6IndlYl9zZWFyY2hfcmVzdWx0IiwidGl0bGUiOiJSdWJ5IDMuNC4wIFJlbGVhc2VkIiwidXJsIjoiaHR0cHM6Ly93d3cucnVieS1sYW5nLm9yZy9lbi9uZXdzLzIwMjQvMTIvMjUvcnVieS0zLTQtMC1yZWxlYXNlZC8iLCJlbmNyeXB0ZWRfY29udGVudCI6IkVxZ2ZDaW9JQmhnQ0lpUTBOR0ZsTmpjMllpMWhNREUxTFRSallqY3RZbU0xTWkxa00yWXhZemN3WWpRME1qUVNEQXNJanZXOFFrR20weXExR2hvTUNFbngyWW8zd1BxOUowYmhJakJSejduVTVtWFEiLCJwYWdlX2FnZSI6IkRlY2VtYmVyIDI1LCAyMDI0In0seyJ0eXBlIjoid2ViX3NlYXJjaF9yZXN1bHQiLCJ0aXRsZSI6IlJlbGVhc2VzIMK3IHJ1YnkvcnVieSDCtyBHaXRIdWIiLCJ1cmwiOiJodHRwczovL2dpdGh1Yi5jb20vcnVieS9ydWJ5L3JlbGVhc2VzIiwiZW5jcnlwdGVkX2NvbnRlbnQiOiJFdThLQ2lvSUJoZ0NJaVEwTkdGbE5qYzJZaTFoTURFMUxUUmpZamN0WW1NMU1pMWtNMll4WXpjd1lqUTBNalFTREo1bTBhUzh5cXY3UmtXbTNCb01wWmsxVnhXcTJMMGNGOGoxSWpCNHRZYyIsInBhZ2VfYWdlIjpudWxsfV19fQoKZXZlbnQ6IGNvbnRlbnRfYmxvY2tfc3RvcApkYXRhOiB7InR5cGUiOiJjb250ZW50X2Jsb2NrX3N0b3AiLCJpbmRleCI6MX0KCmV2ZW50OiBjb250ZW50X2Jsb2NrX3N0YXJ0CmRhdGE6IHsidHlwZSI6ImNvbnRlbnRfYmxvY2tfc3RhcnQiLCJpbmRleCI6MiwiY29udGVudF9ibG9jayI6eyJ0eXBlIjoidGV4dCIsInRleHQiOiIifX0KCmV2ZW50OiBjb250ZW50X2Jsb2NrX2RlbHRhCmRhdGE6IHsidHlwZSI6ImNvbnRlbnRfYmxvY2tfZGVsdGEiLCJpbmRleCI6MiwiZGVsdGEiOnsidHlwZSI6InRleHRfZGVsdGEiLCJ0ZXh0IjoiUnVieSAzLjQuMCB3YXMgcmVsZWFzZWQgb24gIn19CgpldmVudDogY29udGVudF9ibG9ja19zdG9wCmRhdGE6IHsidHlwZSI6ImNvbnRlbnRfYmxvY2tfc3RvcCIsImluZGV4IjoyfQoKZXZlbnQ6IGNvbnRlbnRfYmxvY2tfc3RhcnQKZGF0YTogeyJ0eXBlIjoiY29udGVudF9ibG9ja19zdGFydCIsImluZGV4IjozLCJjb250ZW50X2Jsb2NrIjp7InR5cGUiOiJ0ZXh0IiwidGV4dCI6IiIsImNpdGF0aW9ucyI6W119fQoKZXZlbnQ6IGNvbnRlbnRfYmxvY2tfZGVsdGEKZGF0YTogeyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImluZGV4IjozLCJkZWx0YSI6eyJ0eXBlIjoiY2l0YXRpb25zX2RlbHRhIiwiY2l0YXRpb24iOnsidHlwZSI6IndlYl9zZWFyY2hfcmVzdWx0X2xvY2F0aW9uIiwiY2l0ZWRfdGV4dCI6IlJ1YnkgMy40LjAgUmVsZWFzZWQuIFdlIGFyZSBwbGVhc2VkIHRvIGFubm91bmNlIHRoZSByZWxlYXNlIG9mIFJ1YnkgMy40LjAuICIsInVybCI6Imh0dHBzOi8vd3d3LnJ1YnktbGFuZy5vcmcvZW4vbmV3cy8yMDI0LzEyLzI1L3J1YnktMy00LTAtcmVsZWFzZWQvIiwidGl0bGUiOiJSdWJ5IDMuNC4wIFJlbGVhc2VkIiwiZW5jcnlwdGVkX2luZGV4IjoiRW84QkNpb0lCaGdDSWlRME5HRmxOamMyWWkxaE1ERTFMVFJqWWpjdFltTTFNaTFrTTJZeFl6Y3dZalEwTWpRU0RFM2tYMiJ9fX0KCmV2ZW50OiBjb250ZW50X2Jsb2NrX2RlbHRhCmRhdGE6IHsidHlwZSI6ImNvbnRlbnRfYmxvY2tfZGVsdGEiLCJpbmRleCI6MywiZGVsdGEiOnsidHlwZSI6InRleHRfZGVsdGEiLCJ0ZXh0IjoiRGVjZW1iZXIgMjUsICJ9fQoKZXZlbnQ6IGNvbnRlbnRfYmxvY2tfZGVsdGEKZGF0YTogeyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImluZGV4IjozLCJkZWx0YSI6eyJ0eXBlIjoidGV4dF9kZWx0YSIsInRleHQiOiIyMDI0In19CgpldmVudDogY29udGVudF9ibG9ja19zdG9wCmRhdGE6IHsidHlwZSI6ImNvbnRlbnRfYmxvY2tfc3RvcCIsImluZGV4IjozfQoKZXZlbnQ6IGNvbnRlbnRfYmxvY2tfc3RhcnQKZGF0YTogeyJ0eXBlIjoiY29udGVudF9ibG9ja19zdGFydCIsImluZGV4Ijo0LCJjb250ZW50X2Jsb2NrIjp7InR5cGUiOiJ0ZXh0IiwidGV4dCI6IiJ9fQoKZXZlbnQ6IGNvbnRlbnRfYmxvY2tfZGVsdGEKZGF0YTogeyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImluZGV4Ijo0LCJkZWx0YSI6eyJ0eXBlIjoidGV4dF9kZWx0YSIsInRleHQiOiIuIn19CgpldmVudDogY29udGVudF9ibG9ja19zdG9wCmRhdGE6IHsidHlwZSI6ImNvbnRlbnRfYmxvY2tfc3RvcCIsImluZGV4Ijo0fQoKZXZlbnQ6IG1lc3NhZ2VfZGVsdGEKZGF0YTogeyJ0eXBlIjoibWVzc2FnZV9kZWx0YSIsImRlbHRhIjp7InN0b3BfcmVhc29uIjoiZW5kX3R1cm4iLCJzdG9wX3NlcXVlbmNlIjpudWxsfSwidXNhZ2UiOnsiaW5wdXRfdG9rZW5zIjo5OTA0LCJjYWNoZV9jcmVhdGlvbl9pbnB1dF90b2tlbnMiOjAsImNhY2hlX3JlYWRfaW5wdXRfdG9rZW5zIjowLCJvdXRwdXRfdG9rZW5zIjo5Niwic2VydmVyX3Rvb2xfdXNlIjp7IndlYl9zZWFyY2hfcmVxdWVzdHMiOjF9fX0KCmV2ZW50OiBtZXNzYWdlX3N0b3AKZGF0YTogeyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0KCg=="], "dropped": false}''')


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
PROVIDER = "anthropic"
MODEL = 'claude-sonnet-4-5'
STREAM = True
PATH = "/v1"
CONVERSATION = json.loads(r'''{"messages": [{"role": "user", "content": "When was Ruby 3.4.0 released? Search the web."}], "options": {"max_tokens": 1024, "server_tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}], "stream": true}}''')
PROFILE = {'default_model': 'claude-sonnet-4-5'}


# before the library is imported
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's documented offline switch
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # its token counter: the bundled tokenizers, no download
import litellm

litellm.suppress_debug_info = True


# what the adapter's code imports
import asyncio
import atexit


# stand-ins for the names of the harness the adapter's code reads
class InputError(Exception):
    def __init__(self, message: str, *, where: str = '') -> None:
        super().__init__(f'{where}: {message}' if where else message)


def get_profile(name: str) -> Any:
    """The provider's registry flags the copied code reads (this script serves one provider)."""
    return types.SimpleNamespace(**PROFILE)


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


# from examples.litellm_runtime
litellm: Any


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


STOP = {"stop": "stop", "length": "length", "tool_calls": "tool_use", "function_call": "tool_use"}


STOP |= {"content_filter": "content_filter"}


RAW_STOP = {"pause_turn": "stop", "refusal": "refusal"}


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


THOUGHT = "__thought__"


def _error(exc: Exception) -> dict[str, Any]:
    original = getattr(exc, "original_exception", None)
    if isinstance(exc, litellm.exceptions.MidStreamFallbackError) and isinstance(original, Exception):
        exc = original  # the stream broke after chunks came: what broke it is the error
    kind = next((k for name, k in ERRORS if isinstance(exc, getattr(litellm, name))), None)
    status = getattr(exc, "provider_status_code", None)  # the provider's own (529), where litellm's class says 500
    if not isinstance(status, int):
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


def _fields(obj: Any) -> dict[str, Any]:
    """An object's `provider_specific_fields` (where litellm keeps what OpenAI's shape has no field for)."""
    fields = _field(obj, "provider_specific_fields")
    return fields if isinstance(fields, dict) else {}


def _arguments(raw: Any) -> Any:
    try:
        return json.loads(raw or "{}")
    except (TypeError, ValueError):
        return None


def _calls(msg: Any, server_ids: set[str]) -> list[dict[str, Any]]:
    """The tool calls of a litellm message: its `tool_calls` (or legacy `function_call`), without
    the provider's own tools' calls (`server_ids`, read as server-tool blocks)."""
    content: list[dict[str, Any]] = []
    legacy = _field(msg, "function_call")
    calls = list(_field(msg, "tool_calls") or [])
    if legacy is not None and not calls:
        calls = [{"id": None, "function": legacy}]
    for n, call in enumerate(calls):
        function = _field(call, "function")
        raw = _field(function, "arguments") or ""
        args = _arguments(raw)
        ident, _, signature = str(_field(call, "id") or f"call_{n}").partition(THOUGHT)
        if ident in server_ids or ident.startswith("srvtoolu_"):  # Anthropic's own tool, read from its fields
            continue
        block: dict[str, Any] = {"type": "tool_call", "id": ident, "name": _field(function, "name")}
        block["arguments"] = args if isinstance(args, dict) else {}
        if not isinstance(args, dict):
            block["raw_arguments"] = raw
        extra = _fields(call)
        if isinstance(extra.get("thought_signature"), str):
            block["signature"] = extra["thought_signature"]
        elif signature:
            block["signature"] = signature
        content.append(block)
    return content


def _server_calls(msg: Any, fields: dict[str, Any]) -> list[tuple[int | None, dict[str, Any]]]:
    """(content index, block) of each call of Anthropic's own tools: `server_tool_calls` (with the
    index of its block in the answer), or, where litellm kept them among the tool calls, those."""
    calls = [c for c in fields.get("server_tool_calls") or [] if isinstance(c, dict)]
    if not calls:
        calls = [c for c in _field(msg, "tool_calls") or [] if str(_field(c, "id") or "").startswith("srvtoolu_")]
    out: list[tuple[int | None, dict[str, Any]]] = []
    for call in calls:
        function = _field(call, "function")
        ident = _field(call, "id")
        args = _arguments(_field(function, "arguments"))
        data = {"type": "server_tool_use", "id": ident, "name": _field(function, "name"), "input": args}
        index = _field(call, "index")
        block = {"type": "server_tool", "dialect": "anthropic", "name": "server_tool_use", "id": ident, "data": data}
        out.append((index if isinstance(index, int) else None, block))
    return out


def _server(msg: Any, fields: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int | None]:
    """(compaction blocks, the other server-tool blocks in answer order, the content index of the
    first call) of Anthropic's own tools, which litellm keeps apart from the text: the calls in
    `server_tool_calls`, their results in `web_search_results` (web search and fetch) and
    `tool_results` (the others), compactions in `compaction_blocks`. A result follows the call it
    answers, as Anthropic sends it."""
    calls = sorted(_server_calls(msg, fields), key=lambda c: (c[0] is None, c[0] or 0))
    results: list[dict[str, Any]] = []
    for name in ("web_search_results", "tool_results"):
        results += [r for r in fields.get(name) or [] if isinstance(r, dict)]
    blocks: list[dict[str, Any]] = []
    for _, call in calls:
        blocks.append(call)
        answers = [r for r in results if r.get("tool_use_id") == call["id"]]
        results = [r for r in results if r.get("tool_use_id") != call["id"]]
        blocks += [_result(r) for r in answers]
    blocks += [_result(r) for r in results]
    compactions = [
        {"type": "server_tool", "dialect": "anthropic", "name": "compaction", "id": b.get("id"), "data": b}
        for b in fields.get("compaction_blocks") or []
        if isinstance(b, dict)
    ]
    return compactions, blocks, calls[0][0] if calls else None


def _gemini_server(fields: dict[str, Any]) -> list[dict[str, Any]]:
    """Gemini's server-side tool parts (a Google search's `toolCall` and `toolResponse`), which
    litellm keeps paired in `server_side_tool_invocations` (`tool_type`, `id`, `args`, `response`
    and each part's signature): one block per part, call before response."""
    out: list[dict[str, Any]] = []
    for entry in fields.get("server_side_tool_invocations") or []:
        if not isinstance(entry, dict):
            continue
        ident, kind = entry.get("id"), entry.get("tool_type")
        parts: list[tuple[str, dict[str, Any], Any]] = []
        if "args" in entry:  # a call (with its response merged in), else a response alone
            parts.append(("toolCall", {"args": entry.get("args")}, entry.get("thought_signature")))
            signature = entry.get("response_thought_signature")
        else:
            signature = entry.get("thought_signature")
        if "response" in entry:
            parts.append(("toolResponse", {"response": entry.get("response")}, signature))
        for name, body, sign in parts:
            part: dict[str, Any] = {name: {**body, "id": ident, "toolType": kind}}
            if isinstance(sign, str):
                part["thoughtSignature"] = sign
            out.append({"type": "server_tool", "dialect": "gemini", "name": name, "id": ident, "data": part})
    return out


def _result(result: dict[str, Any]) -> dict[str, Any]:
    name = str(result.get("type"))
    return {
        "type": "server_tool",
        "dialect": "anthropic",
        "name": name,
        "id": result.get("tool_use_id"),
        "data": result,
    }


def _texts(text: str, fields: dict[str, Any]) -> tuple[list[str], int]:
    """The answer's text as the blocks it came in, as far as litellm lets one know, and how many of
    them carry citations' text before the first that does (the text a search may precede). litellm
    joins Anthropic's text blocks into one string; each block with citations is kept in `citations`
    with its own text (`supported_text`), so the cited blocks and the stretches between them are
    found again. Without that text (a stream) the answer stays one block."""
    groups = [g for g in fields.get("citations") or [] if isinstance(g, list) and g and isinstance(g[0], dict)]
    cited = [g[0].get("supported_text") for g in groups]
    if not cited or not all(isinstance(c, str) and c for c in cited):
        return [text], 1
    out: list[str] = []
    first: int | None = None
    at = 0
    for piece in map(str, cited):
        found = text.find(piece, at)
        if found < 0:
            return [text], 1
        if found > at:
            out.append(text[at:found])
        first = len(out) if first is None else first
        out.append(piece)
        at = found + len(piece)
    if at < len(text):
        out.append(text[at:])
    return out, len(out) if first is None else first


def _streamed_details(chunks: list[Any]) -> list[dict[str, Any]]:
    """OpenRouter's reasoning details as the stream's chunks carry them (`delta.reasoning_details`),
    which `stream_chunk_builder` does not rebuild: the pieces of one detail (its `index`, else its
    `id`) joined, text to text, the signature or encrypted data where a piece has it."""
    merged: dict[Any, dict[str, Any]] = {}
    for chunk in chunks:
        for choice in _field(chunk, "choices") or []:
            delta = _field(choice, "delta")
            items = _field(delta, "reasoning_details") or _fields(delta).get("reasoning_details") or []
            for item in items if isinstance(items, list) else []:
                if not isinstance(item, dict):
                    continue
                index, ident = item.get("index"), item.get("id")
                key = index if isinstance(index, int) else ident if isinstance(ident, str) else 0
                into = merged.setdefault(key, {})
                for name, value in item.items():
                    joined = name in ("text", "summary", "data") and isinstance(into.get(name), str)
                    into[name] = into[name] + value if joined and isinstance(value, str) else value
    return list(merged.values())


def _streamed_invocations(chunks: list[Any]) -> list[Any]:
    """Gemini's server-side tool parts as the stream's chunks carry them, in order: the chunk
    builder keeps only the last chunk's `server_side_tool_invocations`."""
    out: list[Any] = []
    for chunk in chunks:
        for choice in _field(chunk, "choices") or []:
            out += _fields(_field(choice, "delta")).get("server_side_tool_invocations") or []
    return out


def _joined(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """litellm's thinking blocks with the pieces of one thought joined: it keeps a block per Gemini
    thought part (and per chunk of a stream) and, for a Mistral stream, a block per delta each with
    one signature of its making, while a thought ends only where its own signature closes it (two
    blocks never share one)."""
    out: list[dict[str, Any]] = []
    for block in blocks:
        last = out[-1] if out else None
        same = last is not None and last["type"] == block["type"] == "thinking"
        if same and last is not None and last.get("signature") in (None, block.get("signature")):
            out[-1] = {**last, "thinking": last["thinking"] + block["thinking"], "signature": block.get("signature")}
        else:
            out.append(block)
    return out


def _thinking(msg: Any, fields: dict[str, Any], streamed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Thinking blocks: litellm's `thinking_blocks` (signatures, redacted data), else OpenRouter's
    `reasoning_details` it keeps in the message's fields (text with signature, encrypted reasoning)
    or, streamed, in the chunks (`streamed`), else its `reasoning_content`."""
    content: list[dict[str, Any]] = []
    for block in _field(msg, "thinking_blocks") or []:
        if _field(block, "type") == "redacted_thinking":
            content.append({"type": "redacted_thinking", "data": _field(block, "data")})
        else:
            thinking = _field(block, "thinking") or ""
            content.append({"type": "thinking", "thinking": thinking, "signature": _field(block, "signature")})
    if content:
        return _joined(content)
    for item in fields.get("reasoning_details") or streamed:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "reasoning.encrypted" and isinstance(item.get("data"), str):
            content.append({"type": "redacted_thinking", "data": item["data"]})
        elif kind in ("reasoning.text", "reasoning.summary"):
            text = item.get("text" if kind == "reasoning.text" else "summary")
            signature = item.get("signature")
            content.append(
                {
                    "type": "thinking",
                    "thinking": text if isinstance(text, str) else "",
                    "signature": signature if isinstance(signature, str) else None,
                }
            )
    if content:
        return content
    # litellm's reasoning_content; Groq's `reasoning` it keeps as the message's own extra field
    reasoning = _field(msg, "reasoning_content") or _field(msg, "reasoning") or fields.get("reasoning")
    return [{"type": "thinking", "thinking": reasoning}] if isinstance(reasoning, str) and reasoning else []


def _message(response: Any, provider: str, chunks: list[Any] | None = None) -> dict[str, Any]:
    """The normalized form of litellm's answer (`response`; for a stream, the message
    `stream_chunk_builder` made of `chunks`)."""
    choice = response.choices[0] if response.choices else None
    msg = choice.message if choice is not None else None
    fields = _fields(msg)
    thinking = _thinking(msg, fields, _streamed_details(chunks or []))
    compactions, server, first_call = _server(msg, fields)
    google = _gemini_server(
        {
            "server_side_tool_invocations": _streamed_invocations(chunks or [])
            or fields.get("server_side_tool_invocations")
        }
    )
    calls = _calls(msg, {str(b["id"]) for b in server if b["name"] == "server_tool_use"})
    text = msg.content if msg is not None and isinstance(msg.content, str) else ""
    refusal = _field(msg, "refusal")
    if refusal and not text:  # OpenAI: the refusal is the answer's text
        text = refusal
    pieces, before = _texts(text, fields) if text else ([], 0)
    texts: list[dict[str, Any]] = [{"type": "text", "text": piece} for piece in pieces]
    signed = {b.get("signature") for b in thinking + calls} | {b["data"].get("thoughtSignature") for b in google}
    loose = [s for s in fields.get("thought_signatures") or [] if isinstance(s, str) and s not in signed]
    if loose and texts:  # Gemini: a text part's signature (litellm sends the first back on the text)
        texts[0]["signature"] = loose[0]
    elif loose:  # an empty text part that only carries a signature: Gemini's closing part, after the calls
        calls.append({"type": "text", "text": "", "signature": loose[0]})
    if server and first_call is not None and first_call > len(thinking) + len(compactions):
        # the call is not the answer's first block after the thinking: text came before the search
        content = thinking + compactions + texts[:before] + server + texts[before:] + calls
    else:
        content = thinking + compactions + server + google + texts + calls  # Google's search before its answer
    out: dict[str, Any] = {"role": "assistant", "content": content, "provider": provider, "model": response.model}
    if choice is not None and choice.finish_reason:
        raw = fields.get("stop_reason")
        stop = RAW_STOP.get(raw) if isinstance(raw, str) else None
        out["stop_reason"] = "refusal" if refusal else stop or STOP.get(choice.finish_reason, "stop")
    usage = _field(response, "usage")
    if usage is not None:
        out["usage"] = _usage(usage)
    return out


def _usage(usage: Any) -> dict[str, int]:
    """litellm's usage: its totals, cache details (`prompt_tokens_details`, Anthropic's own names)
    and reasoning count. Where Anthropic reports iterations (a compaction, a fallback to another
    model), litellm sums them into its totals; the answer's own counts are those of its last
    iteration, which litellm keeps in `usage.iterations`."""
    details = _field(usage, "prompt_tokens_details")
    read = _field(details, "cached_tokens") or _field(usage, "cache_read_input_tokens") or 0
    write = _field(details, "cache_write_tokens") or _field(usage, "cache_creation_input_tokens") or 0
    out = {
        "input_tokens": usage.prompt_tokens or 0,
        "output_tokens": usage.completion_tokens or 0,
        "cache_read_tokens": read,
        "cache_write_tokens": write,
        "reasoning_tokens": _field(_field(usage, "completion_tokens_details"), "reasoning_tokens") or 0,
    }
    iterations = _field(usage, "iterations")
    last = iterations[-1] if isinstance(iterations, list) and len(iterations) > 1 else None
    if isinstance(last, dict) and isinstance(last.get("input_tokens"), int):
        read = last.get("cache_read_input_tokens") or 0
        write = last.get("cache_creation_input_tokens") or 0
        out |= {"input_tokens": last["input_tokens"] + read + write, "output_tokens": last.get("output_tokens") or 0}
        out |= {"cache_read_tokens": read, "cache_write_tokens": write}
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
        message = _message(built, provider, chunks)
        if "stop_reason" not in message:
            return failed({"kind": "stream_interrupted", "message": "the stream ended without a finish"}, message)
        return {"message": message}
    except Exception as exc:  # litellm's exceptions (and a cut stream it did not wrap)
        partial = litellm.stream_chunk_builder(chunks, messages=messages) if chunks else None
        return failed(_error(exc), None if partial is None else _message(partial, provider, chunks))


_LOOP: asyncio.AbstractEventLoop | None = None


def _run(call: Any) -> dict[str, Any]:
    """Run a coroutine on one event loop kept for the process: litellm's logging worker binds to the
    loop it first runs on (a new loop per call makes it carry its pending tasks over each time)."""
    global _LOOP
    if _LOOP is None or _LOOP.is_closed():
        _LOOP = asyncio.new_event_loop()
        atexit.register(_LOOP.close)
    answer: dict[str, Any] = _LOOP.run_until_complete(call)
    return answer


# the library called for this row
def library_result(url: str) -> dict[str, Any]:
    name = f"{PROVIDER_PREFIX[PROVIDER]}/{MODEL or get_profile(PROVIDER).default_model}"
    return _run(_call(name, url + PATH, _messages(CONVERSATION), STREAM, PROVIDER))


# what the row expects at each path it differs at (rules: equals, absent, range, pattern)
# the row's rule, as its source says it:
#     https://github.com/anthropics/anthropic-sdk-python/blob/009b035305e0724ce108ebd796935f91711fc6e1/src/anthropic/types/raw_content_block_start_event.py — "ServerToolUseBlock, WebSearchToolResultBlock," ; https://github.com/anthropics/anthropic-sdk-python/blob/009b035305e0724ce108ebd796935f91711fc6e1/src/anthropic/types/raw_content_block_start_event.py — "class RawContentBlockStartEvent(BaseModel): content_block: ContentBlock"
EXPECTED = json.loads(r'''
[
 {
  "path": "message.content[2].text",
  "rule": "equals",
  "expected": "Ruby 3.4.0 was released on ",
  "line": "changed"
 },
 {
  "path": "message.content[3]",
  "rule": "equals",
  "expected": {
   "type": "text",
   "text": "December 25, 2024"
  },
  "line": "removed"
 },
 {
  "path": "message.content[4]",
  "rule": "equals",
  "expected": {
   "type": "text",
   "text": "."
  },
  "line": "removed"
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
        outcome = library_result(f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
    return judge(outcome)


if __name__ == "__main__":
    sys.exit(main())
