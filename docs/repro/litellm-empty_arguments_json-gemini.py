#!/usr/bin/env python3
r"""empty_arguments_json[gemini]: litellm 1.110.2, standalone.

Needs only the library the row ran (litellm 1.110.2) and Python 3.10+, nothing of the project that wrote it.
    python THIS_FILE.py            exit 0: the library gives the expected value; 1: it does not
    python THIS_FILE.py --got      print what the library gives at each checked path (JSON)

The row (decode check), as `conformance run --runtime examples.litellm_runtime:make --provider gemini
--scenario empty_arguments_json --show-diff` shows it (fail):
    ~ (root): expected {"message": {"role": "assistant", "content": [{"type": "tool_call", "id": "call_0", "name": "get_current_time", "arguments": {}}], "stop_reason": "tool_use", "…, got {"error": {"kind": "invalid_request", "status": 422, "message": "litellm.BadRequestError: GeminiException - Error converting to valid response block='args'. Fi…

Rule source:
    https://github.com/googleapis/python-genai/blob/66807187f2123c6676175ac991f4e34eb09200d1/google/genai/types.py — "args: Optional[dict[str, Any]] Optional. The function parameters and values in JSON object format."
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
RECORDED = json.loads(r'''{"status": 200, "headers": {"content-type": "application/json; charset=UTF-8", "server": "scaffolding on HTTPServer2", "x-gemini-service-tier": "standard", "content-length": "378"}, "chunks": ["eyJjYW5kaWRhdGVzIjogW3siaW5kZXgiOiAwLCAiY29udGVudCI6IHsicGFydHMiOiBbeyJmdW5jdGlvbkNhbGwiOiB7Im5hbWUiOiAiZ2V0X2N1cnJlbnRfdGltZSJ9fV0sICJyb2xlIjogIm1vZGVsIn0sICJmaW5pc2hSZWFzb24iOiAiU1RPUCJ9XSwgInVzYWdlTWV0YWRhdGEiOiB7InByb21wdFRva2VuQ291bnQiOiA0MCwgImNhbmRpZGF0ZXNUb2tlbkNvdW50IjogMywgInRvdGFsVG9rZW5Db3VudCI6IDQzLCAicHJvbXB0VG9rZW5zRGV0YWlscyI6IFt7Im1vZGFsaXR5IjogIlRFWFQiLCAidG9rZW5Db3VudCI6IDQwfV19LCAibW9kZWxWZXJzaW9uIjogImdlbWluaS0yLjUtZmxhc2giLCAicmVzcG9uc2VJZCI6ICJhVzBqYWZYa0JKMkZ6N0lQcTltQXdRcyJ9"], "dropped": false}''')


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
PROVIDER = "gemini"
MODEL = None
STREAM = False
PATH = "/v1beta"
CONVERSATION = json.loads(r'''{"messages": [{"role": "user", "content": "What time is it?"}], "tools": [{"name": "get_current_time", "description": "Get the current time in UTC.", "parameters": {"type": "object", "properties": {}}}], "options": {"max_tokens": 128}}''')
PROFILE = {'default_model': 'gemini-2.5-flash'}


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


# the library called for this row
def library_result(url: str) -> dict[str, Any]:
    name = f"{PROVIDER_PREFIX[PROVIDER]}/{MODEL or get_profile(PROVIDER).default_model}"
    return _run(_call(name, url + PATH, _messages(CONVERSATION), STREAM, PROVIDER))


# what the row expects at each path it differs at (rules: equals, absent, range, pattern)
# the row's rule, as its source says it:
#     https://github.com/googleapis/python-genai/blob/66807187f2123c6676175ac991f4e34eb09200d1/google/genai/types.py — "args: Optional[dict[str, Any]] Optional. The function parameters and values in JSON object format."
EXPECTED = json.loads(r'''
[
 {
  "path": "(root)",
  "rule": "equals",
  "expected": {
   "message": {
    "role": "assistant",
    "content": [
     {
      "type": "tool_call",
      "id": "call_0",
      "name": "get_current_time",
      "arguments": {}
     }
    ],
    "stop_reason": "tool_use",
    "raw_stop_reason": "STOP",
    "usage": {
     "input_tokens": 40,
     "output_tokens": 3,
     "cache_read_tokens": 0,
     "cache_write_tokens": 0,
     "reasoning_tokens": 0
    }
   }
  },
  "line": "changed"
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
