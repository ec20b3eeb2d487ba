"""litellm (the multi-provider Python client) as a runtime under test: every chat column it has a provider for.

Configured as litellm's docs tell a user: the model named with the provider's prefix
(`anthropic/claude-…`, `gemini/gemini-…`, `openrouter/…`, `fireworks_ai/…`, `PROVIDER_PREFIX`),
`api_base` pointing at the host, its own async entry point (`litellm.acompletion`, stream or not;
a stream is rebuilt with `litellm.stream_chunk_builder`, given the conversation's messages as
litellm documents, so its usage estimate has the prompt it needs).

- `decode`: the recorded response is served on a loopback URL (`conformance.adapters.serve_response`)
  in the row's chunks, since litellm reaches providers through several HTTP stacks (the openai SDK,
  its own httpx and aiohttp handlers); litellm's `ModelResponse` — or the exception it raises — is
  mapped to the normalized form, every field it keeps: `content`, `reasoning_content` (Groq's
  `reasoning`), `thinking_blocks` (signatures, redacted data), `tool_calls` (and a Gemini signature
  kept in their `provider_specific_fields`), `finish_reason`, `usage` with its cache and reasoning
  details (and Anthropic's `iterations`), an exception's `provider_status_code`; and what it keeps
  in the message's `provider_specific_fields`: Anthropic's own tools' calls (`server_tool_calls`,
  with the index of their block) and results (`web_search_results`, `tool_results`), compactions,
  the citations' own text (which splits the joined text back into its blocks), the raw stop reason
  (`pause_turn`); OpenRouter's `reasoning_details` (also from the stream's chunks, which
  `stream_chunk_builder` does not rebuild); Gemini's text-part signatures (`thought_signatures`) and
  server-side tool parts (`server_side_tool_invocations`). Where litellm joins what came apart (the
  text around a search; a stream's citation-split text) the order is the best it lets one know.
- litellm has no public request encoder and no single transport to hand the harness's: `encode`
  and `turn` are absent and their rows `skipped`.

Versions covered: litellm 1.60 and later (`stream_chunk_builder` taking `messages`; earlier
releases end with a one-line error). Its retries need `tenacity`.

    conformance run --runtime examples.litellm_runtime:make --provider openai --provider anthropic --provider gemini
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
from typing import Any

from conformance.adapters import Reproduction, conversation_parts, failed, serve_response, text_of
from conformance.capabilities import get_profile
from conformance.exceptions import InputError
from conformance.runtime.protocol import Declaration
from examples._offers import NOT_OFFERED
from examples._supported import require_version

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's documented offline switch: no fetch at import
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # its token counter: the bundled tokenizers, no download
litellm: Any
litellm, VERSION = require_version("litellm", "litellm", minimum=(1, 60))
litellm.suppress_debug_info = True  # its "Give Feedback / Get Help" banner on every exception

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
"""Column → litellm's provider prefix (docs.litellm.ai/docs/providers). Vertex needs Google
credentials litellm fetches itself, Azure a deployment: their columns are not offered."""

STOP = {"stop": "stop", "length": "length", "tool_calls": "tool_use", "function_call": "tool_use"}
STOP |= {"content_filter": "content_filter"}
"""litellm's finish reasons (OpenAI's vocabulary for every provider) → stop reasons."""

RAW_STOP = {"pause_turn": "stop", "refusal": "refusal"}
"""Anthropic's stop reasons litellm keeps raw (`provider_specific_fields['stop_reason']`) where its own
finish reason says otherwise (`pause_turn` is `length` by its table): a paused turn ends as a stop."""

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
"""litellm's exception classes (most specific first) → normalized error kinds."""

EXPOSED = frozenset({"message.usage", "error.status", "partial"})
"""litellm maps every provider's finish reason to OpenAI's and keeps a raw one only for Anthropic's
`pause_turn` and `refusal`, and no provider error code; its exception messages are its own sentences
around the provider's (or its whole error body)."""

THOUGHT = "__thought__"
"""litellm keeps a Gemini call's thought signature inside the call id it hands out (`<id>__thought__<signature>`)."""


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


async def _closing(call: Any) -> dict[str, Any]:
    """`call`, then litellm's cached clients closed and dropped (its documented cleanup): each is kept
    per base URL, and each decode's loopback URL is gone once it answered — kept, their connections
    would pile up, one socket per decode."""
    try:
        answer: dict[str, Any] = await call
    finally:
        await litellm.close_litellm_async_clients()
        litellm.in_memory_llm_clients_cache.flush_cache()
    return answer


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


REPRODUCTION = Reproduction(
    module=__name__,
    setup="""
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's documented offline switch
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # its token counter: the bundled tokenizers, no download
import litellm

litellm.suppress_debug_info = True
""",
    decode="""
def library_result(url: str) -> dict[str, Any]:
    name = f"{PROVIDER_PREFIX[PROVIDER]}/{MODEL or get_profile(PROVIDER).default_model}"
    return _run(_call(name, url + PATH, _messages(CONVERSATION), STREAM, PROVIDER))
""",
)
"""A decode row as a standalone script (`conformance repro`): `decode` with the loopback the script serves."""


class LitellmRuntime:
    name = f"litellm {VERSION}"
    reproduction = REPRODUCTION
    declaration = Declaration(
        name=f"litellm {VERSION}",
        version=VERSION,
        providers=frozenset(PROVIDER_PREFIX),
        not_offered=NOT_OFFERED,
        exposed_fields=EXPOSED,
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
        prefix = PROVIDER_PREFIX.get(provider)
        if prefix is None:
            raise InputError(
                f"this adapter drives litellm for {', '.join(PROVIDER_PREFIX)}, not {provider}", where="--provider"
            )
        profile = get_profile(provider)
        path = "/" + profile.base_url.split("//", 1)[-1].partition("/")[2]
        with serve_response(status, headers, chunks) as served:
            name = f"{prefix}/{model or profile.default_model}"
            return _run(_closing(_call(name, served.url + path.rstrip("/"), _messages(conversation), stream, provider)))


def make() -> LitellmRuntime:
    return LitellmRuntime()
