#!/usr/bin/env python3
r"""deepseek_reasoning_content[mistral]: openai-sdk-async 3.57.0, standalone.

Needs only the library the row ran (openai-sdk-async 3.57.0) and Python 3.10+, nothing of the project that wrote it.
    python THIS_FILE.py            exit 0: the library gives the expected value; 1: it does not
    python THIS_FILE.py --got      print what the library gives at each checked path (JSON)

The row (decode check), as `conformance run --runtime examples.openai_sdk:make_async --provider mistral
--scenario deepseek_reasoning_content --show-diff` shows it (fail):
    + message.content[0].text: "Canberra." (unexpected)
    - message.content[0].thinking: "Canberra was chosen as a compromise between Sydney and Melbourne." (missing)
    ~ message.content[0].type: expected "thinking", got "text"
    - message.content[1]: {"type": "text", "text": "Canberra."} (missing)

Rule source:
    https://docs.mistral.ai/inference/conversations/reasoning — "The output of reasoning models includes a reasoning chunk with the model's thinking traces, followed by the final answer."
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
RECORDED = json.loads(r'''{"status": 200, "headers": {"content-type": "text/event-stream", "content-length": "1235"}, "chunks": ["ZGF0YTogeyJpZCI6ImNoYXRjbXBsLTlmM2IyYzFkIiwib2JqZWN0IjoiY2hhdC5jb21wbGV0aW9uLmNodW5rIiwiY3JlYXRlZCI6MTc2MzgwNTYwMCwibW9kZWwiOiJtYWdpc3RyYWwtbWVkaXVtLTI1MDkiLCJjaG9pY2VzIjpbeyJpbmRleCI6MCwiZGVsdGEiOnsicm9sZSI6ImFzc2lzdGFudCIsImNvbnRlbnQiOiIifSwiZmluaXNoX3JlYXNvbiI6bnVsbH1dfQoKZGF0YTogeyJpZCI6ImNoYXRjbXBsLTlmM2IyYzFkIiwib2JqZWN0IjoiY2hhdC5jb21wbGV0aW9uLmNodW5rIiwiY3JlYXRlZCI6MTc2MzgwNTYwMCwibW9kZWwiOiJtYWdpc3RyYWwtbWVkaXVtLTI1MDkiLCJjaG9pY2VzIjpbeyJpbmRleCI6MCwiZGVsdGEiOnsiY29udGVudCI6W3sidHlwZSI6InRoaW5raW5nIiwidGhpbmtpbmciOlt7InR5cGUiOiJ0ZXh0IiwidGV4dCI6IkNhbmJlcnJhIHdhcyBjaG9zZW4gYXMgYSBjb21wcm9taXNlICJ9XX1dfSwiZmluaXNoX3JlYXNvbiI6bnVsbH1dfQoKZGF0YTogeyJpZCI6ImNoYXRjbXBsLTlmM2IyYzFkIiwib2JqZWN0IjoiY2hhdC5jb21wbGV0aW9uLmNodW5rIiwiY3JlYXRlZCI6MTc2MzgwNTYwMCwibW9kZWwiOiJtYWdpc3RyYWwtbWVkaXVtLTI1MDkiLCJjaG9pY2VzIjpbeyJpbmRleCI6MCwiZGVsdGEiOnsiY29udGVudCI6W3sidHlwZSI6InRoaW5raW5nIiwidGhpbmtpbmciOlt7InR5cGUiOiJ0ZXh0IiwidGV4dCI6ImJldHdlZW4gU3lkbmV5IGFuZCBNZWxib3VybmUuIn1dfV19LCJmaW5pc2hfcmVhc29uIjpudWxsfV19CgpkYXRhOiB7ImlkIjoiY2hhdGNtcGwtOWYzYjJjMWQiLCJvYmplY3QiOiJjaGF0LmNvbXBsZXRpb24uY2h1bmsiLCJjcmVhdGVkIjoxNzYzODA1NjAwLCJtb2RlbCI6Im1hZ2lzdHJhbC1tZWRpdW0tMjUwOSIsImNob2ljZXMiOlt7ImluZGV4IjowLCJkZWx0YSI6eyJjb250ZW50IjoiQ2FuYmVycmEuIn0sImZpbmlzaF9yZWFzb24iOm51bGx9XX0KCmRhdGE6IHsiaWQiOiJjaGF0Y21wbC05ZjNiMmMxZCIsIm9iamVjdCI6ImNoYXQuY29tcGxldGlvbi5jaHVuayIsImNyZWF0ZWQiOjE3NjM4MDU2MDAsIm1vZGVsIjoibWFnaXN0cmFsLW1lZGl1bS0yNTA5IiwiY2hvaWNlcyI6W3siaW5kZXgiOjAsImRlbHRhIjp7ImNvbnRlbnQiOiIifSwiZmluaXNoX3JlYXNvbiI6InN0b3AifV0sInVzYWdlIjp7InByb21wdF90b2tlbnMiOjEyLCJjb21wbGV0aW9uX3Rva2VucyI6MzAsInRvdGFsX3Rva2VucyI6NDJ9fQoKZGF0YTogW0RPTkVdCgo="], "dropped": false}''')


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
PROVIDER = "mistral"
MODEL = None
STREAM = True
PATH = "/v1"
CONVERSATION = json.loads(r'''{"messages": [{"role": "user", "content": "What is the capital of Australia?"}], "options": {"stream": true, "max_tokens": 512}}''')
PROFILE = {'name': 'mistral',
 'output_excludes_reasoning': False,
 'reasoning_details': False,
 'reasoning_fields': [],
 'reasoning_fields_read': []}


# what the adapter's code imports
from openai.lib.streaming.chat import ChatCompletionStreamState
import asyncio
import openai


# stand-ins for the names of the harness the adapter's code reads
def get_profile(name: str) -> Any:
    """The provider's registry flags the copied code reads (this script serves one provider)."""
    return types.SimpleNamespace(**PROFILE)


def reraise_replay_mismatch(exc: BaseException | None, transport: Any = None) -> None:
    """The harness's "request not in cassette" signal: there is no cassette here."""


# the adapter's call and mapping, as it is
# from conformance.adapters._conversation
def failed(error: dict[str, Any], partial: dict[str, Any] | None) -> dict[str, Any]:
    """The outcome of a response that failed after `partial` arrived: the partial message carries the
    error too (docs/normalized-form.md); an error the provider sent ends it with `stop_reason: error`."""
    if partial is not None:
        partial = {**partial, "error": error}
        if error.get("kind") != "stream_interrupted":
            partial["stop_reason"] = "error"
    return {"error": error, "partial": partial}


# from examples.openai_sdk
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


OVERLOADED_STATUSES = frozenset({503, 529})


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


# the library called for this row
def library_result(url: str) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with openai.AsyncOpenAI(api_key="dummy", base_url=url + PATH, max_retries=0) as client:
            return await _acall(client, {}, STREAM, PROVIDER)

    return asyncio.run(run())


# what the row expects at each path it differs at (rules: equals, absent, range, pattern)
# the row's rule, as its source says it:
#     https://docs.mistral.ai/inference/conversations/reasoning — "The output of reasoning models includes a reasoning chunk with the model's thinking traces, followed by the final answer."
EXPECTED = json.loads(r'''
[
 {
  "path": "message.content[0].text",
  "rule": "absent",
  "line": "added"
 },
 {
  "path": "message.content[0].thinking",
  "rule": "equals",
  "expected": "Canberra was chosen as a compromise between Sydney and Melbourne.",
  "line": "removed"
 },
 {
  "path": "message.content[0].type",
  "rule": "equals",
  "expected": "thinking",
  "line": "changed"
 },
 {
  "path": "message.content[1]",
  "rule": "equals",
  "expected": {
   "type": "text",
   "text": "Canberra."
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
