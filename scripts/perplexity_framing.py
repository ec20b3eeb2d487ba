"""A Chat Completions answer as Perplexity's Sonar API frames it (used by `author_cassettes.py`).

From the documented wire format (docs.perplexity.ai/api-reference/chat-completions-post, the
`StreamChunk` and `UsageInfo` types of Perplexity's SDK, docs.perplexity.ai/docs/sonar/pro-search/stream-mode):

- a completion has a UUID `id`, `object: chat.completion`, `citations` and `search_results` at the
  top level, `usage` with `search_context_size` and a `cost` breakdown (no cached-token or
  `*_tokens_details` counts), and each choice carries both its `message` and an empty `delta`;
- a stream (`stream_mode: full`, the default) repeats in every chunk the message so far
  (`choices[].message`) beside the `delta`, and the usage so far, with a zero cost skeleton; there is
  no usage-only chunk and no `data: [DONE]`: the chunk with the `finish_reason` is the last one, its
  `object` is `chat.completion.done` and it has the final usage with the request cost. A stream
  whose source reports no usage (cut off, failed) is written without it;
- an HTTP error is `{"error": {"message", "type", "code": <HTTP status>}}`.

Frames that are not JSON (a frame cut short) and error frames are kept as they are.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any

import orjson

CITATION = "https://docs.perplexity.ai/getting-started/overview"
SEARCH_RESULT = {"title": "Perplexity API overview", "url": CITATION, "date": None, "last_updated": "2026-11-20"}


def _uuid(seed: bytes) -> str:
    return str(uuid.UUID(hashlib.sha256(seed).hexdigest()[:32]))


def _cost(usage: dict[str, Any], final: bool) -> dict[str, Any]:
    if not final:
        return {"input_tokens_cost": 0, "output_tokens_cost": 0, "total_cost": 0}
    inp, out = usage["prompt_tokens"] * 3e-6, usage["completion_tokens"] * 15e-6  # sonar-pro: $3 / $15 per 1M
    return {
        "input_tokens_cost": round(inp, 5),
        "output_tokens_cost": round(out, 5),
        "request_cost": 0.006,
        "total_cost": round(inp + out + 0.006, 5),
    }


def _usage(source: Any, *, completion: int | None = None, final: bool = True) -> dict[str, Any] | None:
    if not isinstance(source, dict):
        return None
    prompt = int(source.get("prompt_tokens") or 0)
    done = int(source.get("completion_tokens") or 0)
    out = done if completion is None else min(completion, done)
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out}
    usage["search_context_size"] = "low"
    usage["cost"] = _cost(usage, final)
    return usage


def _choice(choice: dict[str, Any], content: str, *, whole: bool) -> dict[str, Any]:
    message = choice.get("message") if whole else None
    out: dict[str, Any] = {"index": choice.get("index", 0)}
    if whole and isinstance(message, dict):
        msg = {"role": "assistant", "content": message.get("content") or ""}
        if message.get("tool_calls"):
            msg["tool_calls"] = message["tool_calls"]
        out["message"] = msg
        out["delta"] = {"role": "assistant", "content": ""}
    else:
        delta = dict(choice.get("delta") or {})
        delta.pop("refusal", None)
        delta["role"] = "assistant"
        delta.setdefault("content", "")
        out["message"] = {"role": "assistant", "content": content}
        out["delta"] = delta
    if choice.get("finish_reason"):
        out["finish_reason"] = choice["finish_reason"]
    return out


def completion(body: bytes) -> bytes:
    """A non-streaming answer (or an HTTP error) in Perplexity's framing."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body
    if not isinstance(data, dict):
        return body
    if "choices" not in data:
        return body
    out = {
        "id": _uuid(body),
        "model": data.get("model"),
        "created": data.get("created", 1795000000),
        "usage": _usage(data.get("usage")),
        "citations": [CITATION],
        "search_results": [SEARCH_RESULT],
        "object": "chat.completion",
        "choices": [_choice(c, "", whole=True) for c in data["choices"] if isinstance(c, dict)],
    }
    if out["usage"] is None:
        del out["usage"]
    return orjson.dumps(out, option=orjson.OPT_INDENT_2) + b"\n"


KNOWN_ERRORS: dict[str, tuple[str, str | None]] = {
    "invalid_api_key": ("invalid_api_key", "Invalid API key provided. Ensure your API key is correct and active."),
    "context_length_exceeded": ("too_many_prompt_tokens", "The total length of all messages is too long."),
    "decimal_above_max_value": ("invalid_parameter", None),
}
"""Source error code → Perplexity's `type` and message where its wording is known (a 401 for a bad key;
a 400 when the messages are too long; `invalid_parameter` for a value out of range); other errors
keep the source's message and code."""


_OPENAI_RATE_LIMIT = re.compile(
    r"Rate limit reached for \S+ in organization \S+ on \w+ per min \((?P<unit>[A-Z]+)\):.*?"
    r"(?P<hint>Please try again in [0-9.]+m?s\.)"
)
"""OpenAI's rate-limit wording (its model and organization): said of Perplexity's default model
instead, with the same unit and retry hint, so no other provider's name is left in the body."""


def _rate_limit_message(message: str) -> str:
    match = _OPENAI_RATE_LIMIT.search(message)
    if match is None:
        return message
    return f"Rate limit exceeded for sonar-pro ({match['unit']}). {match['hint']}"


def error(status: int, body: bytes) -> bytes:
    """An HTTP error in Perplexity's envelope."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body
    err = data.get("error") if isinstance(data, dict) else None
    if not isinstance(err, dict):
        return body
    kind = err.get("code") if isinstance(err.get("code"), str) else err.get("type")
    message = _rate_limit_message(err.get("message") or "")
    if kind in KNOWN_ERRORS:
        kind, known = KNOWN_ERRORS[kind]
        message = known or message
    envelope = {"message": message, "type": kind or "server_error", "code": status}
    return orjson.dumps({"error": envelope}) + b"\n"


def stream(body: bytes) -> bytes:
    """A streamed answer in Perplexity's framing (see the module docstring)."""
    frames = body.split(b"\n\n")
    parsed: list[Any] = []
    final_usage: Any = None
    for frame in frames:
        data: Any = None
        if frame.startswith(b"data: {"):
            try:
                data = orjson.loads(frame[6:])
            except orjson.JSONDecodeError:
                data = None
        parsed.append(data)
        if isinstance(data, dict) and isinstance(data.get("usage"), dict):
            final_usage = data["usage"]
    rid = _uuid(body)
    text = ""
    sent = 0
    out: list[bytes] = []
    for frame, data in zip(frames, parsed, strict=True):
        if frame == b"data: [DONE]":
            continue
        if not isinstance(data, dict) or "error" in data:
            out.append(frame)
            continue
        choices = [c for c in data.get("choices") or [] if isinstance(c, dict)]
        if not choices:
            continue  # the usage-only chunk: Perplexity reports usage on every chunk instead
        content = choices[0].get("delta", {}).get("content")
        text += content if isinstance(content, str) else ""
        sent += 1
        last = bool(choices[0].get("finish_reason"))
        chunk: dict[str, Any] = {"id": rid, "model": data.get("model"), "created": data.get("created", 1795000000)}
        usage = _usage(final_usage, completion=None if last else sent, final=last)
        if usage is not None:
            chunk["usage"] = usage
        chunk["citations"] = [CITATION]
        chunk["search_results"] = [SEARCH_RESULT]
        chunk["object"] = "chat.completion.done" if last else "chat.completion.chunk"
        chunk["choices"] = [_choice(choices[0], text, whole=False)]
        out.append(b"data: " + orjson.dumps(chunk))
    return b"\n\n".join(out)


def reframe(body: bytes, is_stream: bool) -> bytes:
    """An answer (`author_cassettes.REFRAMERS`); the model name is already the target's."""
    return stream(body) if is_stream else completion(body)
