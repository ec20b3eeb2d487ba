"""Author the cassettes of a new provider column from another column's cassettes of the same scenarios.

    python scripts/author_cassettes.py responses --source openai --target openai_responses SCENARIO...
    python scripts/author_cassettes.py reframe --source groq --target together SCENARIO...
    python scripts/author_cassettes.py clone --source gemini --target vertex
    python scripts/author_cassettes.py compat --source openai --target cerebras --facts scripts/facts/cerebras.json
    conformance sync-requests --provider <target> --yes   # the request bodies, from the encoder

`responses`: each answer of the source cassette (decoded to the normalized form) is written again
in the Responses API's framing, from the wire reference (§2.3–2.5): a `response` object with
`reasoning` / `message` / `function_call` output items, or the SSE event sequence
(`response.created` … `response.output_item.added` … deltas … `response.output_item.done` …
`response.completed | incomplete | failed`). A stream cut before its terminal event stays cut (its
last frame broken off), an in-band error becomes an `error` event followed by `response.failed`,
HTTP errors keep their bodies (the Responses API answers them with the same envelope, or
`--openai-errors` restates another dialect's). Item ids are derived from the answer, so re-running
gives the same bytes. `--comment` adds a server's keep-alive comments, `--thinking-last` puts
reasoning items after the others.

`reframe`: the source cassette's bytes for a server of the same dialect, with the target's URL,
model name and response headers (`FRAMING`) and its framing differences (`REFRAMERS`).
`clone`: every entry of the source column given to the target (cassettes reframed, overrides
carried, provider facts restated). `compat`: an OpenAI-compatible host's column, its own facts
first, then the OpenAI column, then Groq's facts restated.

A compaction, trimming or context scenario's requests are its own (`sync-requests` skips them):
they are carried over by `translate_request`.

Each run writes, per scenario, the target's entry and override into the scenario file: the ids,
signatures and `raw_stop_reason` this script wrote into the cassette, merged over the source
provider's expected form. The cassette's `meta` says it was authored and from what.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from conformance import __version__
from conformance.capabilities import get_profile
from conformance.model import (
    AssistantMessage,
    Outcome,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from conformance.replay.cassette import (
    Cassette,
    Interaction,
    RecordedRequest,
    RecordedResponse,
    load_cassette,
    save_cassette,
)
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

sys.path.insert(0, str(Path(__file__).resolve().parent))
import perplexity_framing  # beside this script

ROOT = Path(__file__).resolve().parents[1]

MODELS: dict[str, str] = {
    "openai_responses": "gpt-4.1-mini-2025-04-14",
    "azure_responses": "gpt-4.1-mini-2025-04-14",
    "xai_responses": "grok-4-1-fast-non-reasoning",
    "openrouter_responses": "openai/gpt-4.1-mini",
    "azure": "gpt-4.1-mini-2025-04-14",
    "vertex": "gemini-2.5-flash",
    "together": "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    "cerebras": "llama-3.3-70b",
    "huggingface": "meta-llama/Llama-3.1-8B-Instruct",
    "perplexity": "sonar-pro",
}
"""The model a target's answers name (the request's model is the profile default)."""

FRAMING: dict[str, dict[str, list[str]]] = {
    "openai_responses": {"openai-version": ["2020-10-01"], "openai-organization": ["org-redacted"]},
    "azure_responses": {
        "apim-request-id": ["{uuid}"],
        "x-ms-region": ["East US 2"],
        "azureml-model-session": ["v20250725-1-163487286"],
    },
    "xai_responses": {"x-zero-data-retention": ["false"]},
    "openrouter_responses": {"x-generation-id": ["gen-{short}"]},
    "azure": {
        "apim-request-id": ["{uuid}"],
        "x-ms-region": ["East US 2"],
        "azureml-model-session": ["v20250725-1-163487286"],
    },
    "vertex": {"server": ["scaffolding on HTTPServer2"], "x-vertex-ai-llm-request-type": ["shared"]},
    "together": {"x-together-request-id": ["{short}"], "server": ["cloudflare"]},
    "cerebras": {"cerebras-request-id": ["{uuid}"]},
    "huggingface": {"x-inference-provider": ["together"], "x-robots-tag": ["none"]},
    "perplexity": {"server": ["cloudflare"], "cf-cache-status": ["DYNAMIC"], "x-ppl-region": ["us-east-1"]},
}
"""Response headers of each target besides content-type and the request id."""

TITLES: dict[str, str] = {"gemini": "the Gemini API", "openai": "OpenAI"}

NAMES: dict[str, str] = {
    "together": "Together AI",
    "cerebras": "Cerebras",
    "huggingface": "Hugging Face",
    "perplexity": "Perplexity",
}
"""How a `compat` clone names the target in the provider facts it restates."""
"""How a `clone` names the source whose provider fact it restates."""


def _azure_filters(body: bytes, stream: bool) -> bytes:
    """Azure OpenAI's content-filter annotations: `prompt_filter_results` (a first chunk with no
    choices when streaming) and `content_filter_results` on each choice."""
    safe = {k: {"filtered": False, "severity": "safe"} for k in ("hate", "self_harm", "sexual", "violence")}
    prompt = [{"prompt_index": 0, "content_filter_results": safe}]
    if not stream:
        data = orjson.loads(body)
        if not isinstance(data, dict) or "choices" not in data:
            return body
        data["prompt_filter_results"] = prompt
        for choice in data["choices"]:
            filtered = choice.get("finish_reason") == "content_filter"
            choice["content_filter_results"] = (
                {**safe, "violence": {"filtered": True, "severity": "high"}} if filtered else safe
            )
        return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
    first = {"choices": [], "created": 0, "id": "", "model": "", "object": "", "prompt_filter_results": prompt}
    return b"data: " + orjson.dumps(first) + b"\n\n" + body


_GATEWAY_FIELDS = frozenset({"provider", "native_finish_reason", "cost", "is_byok", "cost_details"})
"""Fields an OpenRouter answer carries that a server of its own does not send."""


def _strip_gateway(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_gateway(v) for k, v in value.items() if k not in _GATEWAY_FIELDS}
    if isinstance(value, list):
        return [_strip_gateway(v) for v in value]
    return value


def _plain_server(body: bytes, stream: bool) -> bytes:
    """A gateway's answer as the server itself frames it: OpenRouter's own fields removed."""
    if not stream:
        try:
            return orjson.dumps(_strip_gateway(orjson.loads(body)), option=orjson.OPT_INDENT_2) + b"\n"
        except orjson.JSONDecodeError:
            return body
    out = []
    for line in body.split(b"\n"):
        if line.startswith(b"data: {"):
            with contextlib.suppress(orjson.JSONDecodeError):
                line = b"data: " + orjson.dumps(_strip_gateway(orjson.loads(line[6:])))
        out.append(line)
    return b"\n".join(out)


REFRAMERS: dict[str, Any] = {
    "azure": _azure_filters,
    "together": _plain_server,
    "cerebras": _plain_server,
    "huggingface": _plain_server,
    "perplexity": perplexity_framing.reframe,
}
"""Per target: how its framing differs from the source's bytes (`reframe`, `clone`)."""

ERROR_REFRAMERS: dict[str, Any] = {"perplexity": perplexity_framing.error}
"""Per target: its HTTP error envelope, from the status and the source's error body."""

NO_REQUEST_ID = frozenset({"perplexity"})
"""Targets whose answers carry no request-id header."""

NO_RATE_LIMIT_HEADERS = frozenset({"perplexity"})
"""Targets that document no `x-ratelimit-*` headers (only `retry-after` is kept from the source)."""

REQUEST_ID: dict[str, str] = {
    "openai_responses": "x-request-id",
    "azure_responses": "x-request-id",
    "xai_responses": "x-request-id",
    "openrouter_responses": "x-request-id",
}

KEPT_HEADERS = frozenset({"retry-after", "retry-after-ms"}) | {
    f"x-ratelimit-{k}"
    for k in (
        "limit-requests",
        "limit-tokens",
        "remaining-requests",
        "remaining-tokens",
        "reset-requests",
        "reset-tokens",
    )
}
"""Source headers that carry meaning for the scenarios (retry hints) and are kept."""


def _hex(*parts: str, n: int = 48) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:n]


def answer_seed(outcome: Outcome) -> str:
    """Ids follow the answer, not the scenario: two scenarios that replay the same answer (a
    stream and the same stream with keep-alives) serve the same items, so either cassette answers
    either request."""
    message = outcome.message or outcome.partial
    assert message is not None
    blocks = [b.model_dump(mode="json") for b in message.content]
    return _hex(orjson.dumps([blocks, message.stop_reason, outcome.error is not None]).decode(), n=16)


class Ids:
    """Deterministic item ids for one target and scenario."""

    def __init__(self, target: str, scenario: str, interaction: int) -> None:
        self.seed = (target, scenario, str(interaction))
        self.count = 0

    def make(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}_{_hex(*self.seed, prefix, str(self.count))}"

    def encrypted(self, text: str) -> str:
        """An opaque stand-in for `encrypted_content` (base64url, as OpenAI's Fernet tokens are)."""
        digest = hashlib.sha512("/".join((*self.seed, text)).encode()).hexdigest()
        return "gAAAAAB" + digest[:120]


# rendering ----------------------------------------------------------------------------------------


class Rendered:
    """One answer in Responses framing, and what was written for each block (for the override)."""

    def __init__(self) -> None:
        self.output: list[dict[str, Any]] = []
        self.block_signatures: list[str | None] = []
        self.block_types: list[str] = []
        self.order: list[int] = []
        """The message's block index of each rendered block."""

    def by_block(self) -> list[tuple[str | None, str]]:
        """Signature and kind of each block, in the message's (normalized) order."""
        pairs = dict(zip(self.order, zip(self.block_signatures, self.block_types, strict=True), strict=True))
        return [pairs[n] for n in sorted(pairs)]


COMMENT: str | None = None
"""`--comment`: an SSE comment line the target sends as a keep-alive (OpenRouter), put before the
first event and after every fifth."""

THINKING_LAST = False
"""`--thinking-last`: reasoning items after the other items (a wire order the decoder must undo)."""


def render_items(message: AssistantMessage, ids: Ids, refusal: bool) -> Rendered:
    out = Rendered()
    text_item: dict[str, Any] | None = None
    order = list(range(len(message.content)))
    if THINKING_LAST:
        thinking = [n for n in order if isinstance(message.content[n], ThinkingBlock | RedactedThinkingBlock)]
        order = [n for n in order if n not in thinking] + thinking
    for n in order:
        block = message.content[n]
        out.order.append(n)
        if isinstance(block, TextBlock):
            if text_item is None:
                text_item = {
                    "type": "message",
                    "id": ids.make("msg"),
                    "status": "completed",
                    "role": "assistant",
                    "content": [],
                }
                out.output.append(text_item)
            part = (
                {"type": "refusal", "refusal": block.text}
                if refusal
                else {"type": "output_text", "annotations": [], "logprobs": [], "text": block.text}
            )
            text_item["content"].append(part)
            out.block_signatures.append(text_item["id"])
            out.block_types.append("text")
            continue
        text_item = None
        if isinstance(block, ThinkingBlock | RedactedThinkingBlock):
            text = block.thinking if isinstance(block, ThinkingBlock) else ""
            opaque = ids.encrypted(block.signature or "" if isinstance(block, ThinkingBlock) else block.data)
            item = {
                "type": "reasoning",
                "id": ids.make("rs"),
                "summary": [{"type": "summary_text", "text": text}] if text else [],
                "encrypted_content": opaque,
            }
            out.output.append(item)
            out.block_signatures.append(orjson.dumps({"id": item["id"], "encrypted_content": opaque}).decode())
            out.block_types.append("thinking")
        elif isinstance(block, ToolCallBlock):
            args = block.raw_arguments if block.raw_arguments is not None else orjson.dumps(block.arguments).decode()
            item = {
                "type": "function_call",
                "id": ids.make("fc"),
                "call_id": block.id,
                "name": block.name,
                "arguments": args,
                "status": "completed",
            }
            out.output.append(item)
            out.block_signatures.append(item["id"])
            out.block_types.append("tool_call")
    return out


def status_of(message: AssistantMessage) -> tuple[str, dict[str, Any] | None]:
    """`status` and `incomplete_details` for the message's stop reason."""
    if message.stop_reason == "length":
        return "incomplete", {"reason": "max_output_tokens"}
    if message.stop_reason == "content_filter":
        return "incomplete", {"reason": "content_filter"}
    if message.stop_reason == "error":
        return "failed", None
    return "completed", None


def usage_of(message: AssistantMessage) -> dict[str, Any] | None:
    u = message.usage
    if u is None:
        return None
    return {
        "input_tokens": u.input_tokens,
        "input_tokens_details": {"cached_tokens": u.cache_read_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
        "total_tokens": u.input_tokens + u.output_tokens,
    }


def response_object(
    rid: str, model: str, output: list[dict[str, Any]], status: str, details: Any, usage: Any, error: Any = None
) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "created_at": 1795000000,
        "status": status,
        "background": False,
        "error": error,
        "incomplete_details": details,
        "instructions": None,
        "max_output_tokens": None,
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "store": False,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage,
    }


def _pieces(text: str, size: int = 6) -> list[str]:
    """Deltas of a few characters, as the API streams tokens."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class Events:
    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def add(self, kind: str, **fields: Any) -> None:
        data = {"type": kind, "sequence_number": len(self.frames), **fields}
        self.frames.append(f"event: {kind}\n".encode() + b"data: " + orjson.dumps(data) + b"\n\n")


def stream_items(ev: Events, rendered: Rendered, *, close_last: bool) -> None:
    """The added / delta / done events of every output item (the last left open when `close_last`
    is False: the stream stops inside it)."""
    for n, item in enumerate(rendered.output):
        last = n == len(rendered.output) - 1
        done = close_last or not last
        if item["type"] == "message":
            ev.add("response.output_item.added", output_index=n, item={**item, "status": "in_progress", "content": []})
            for c, part in enumerate(item["content"]):
                kind = part["type"]
                field = "text" if kind == "output_text" else "refusal"
                empty = {**part, field: ""}
                ev.add("response.content_part.added", item_id=item["id"], output_index=n, content_index=c, part=empty)
                delta = "response.output_text.delta" if kind == "output_text" else "response.refusal.delta"
                for piece in _pieces(part[field]):
                    extra = {"logprobs": []} if kind == "output_text" else {}
                    ev.add(delta, item_id=item["id"], output_index=n, content_index=c, delta=piece, **extra)
                if done:
                    end = "response.output_text.done" if kind == "output_text" else "response.refusal.done"
                    ev.add(end, item_id=item["id"], output_index=n, content_index=c, **{field: part[field]})
                    ev.add("response.content_part.done", item_id=item["id"], output_index=n, content_index=c, part=part)
        elif item["type"] == "function_call":
            ev.add(
                "response.output_item.added", output_index=n, item={**item, "status": "in_progress", "arguments": ""}
            )
            for piece in _pieces(item["arguments"], 8):
                ev.add("response.function_call_arguments.delta", item_id=item["id"], output_index=n, delta=piece)
            if done:
                ev.add(
                    "response.function_call_arguments.done",
                    item_id=item["id"],
                    output_index=n,
                    arguments=item["arguments"],
                )
        else:
            ev.add(
                "response.output_item.added",
                output_index=n,
                item={"type": "reasoning", "id": item["id"], "summary": []},
            )
            for s, summary in enumerate(item["summary"]):
                ev.add(
                    "response.reasoning_summary_part.added",
                    item_id=item["id"],
                    output_index=n,
                    summary_index=s,
                    part={"type": "summary_text", "text": ""},
                )
                for piece in _pieces(summary["text"]):
                    ev.add(
                        "response.reasoning_summary_text.delta",
                        item_id=item["id"],
                        output_index=n,
                        summary_index=s,
                        delta=piece,
                    )
                ev.add(
                    "response.reasoning_summary_text.done",
                    item_id=item["id"],
                    output_index=n,
                    summary_index=s,
                    text=summary["text"],
                )
                ev.add(
                    "response.reasoning_summary_part.done",
                    item_id=item["id"],
                    output_index=n,
                    summary_index=s,
                    part=summary,
                )
        if done:
            ev.add("response.output_item.done", output_index=n, item=item)


def render_answer(outcome: Outcome, *, stream: bool, ids: Ids, model: str) -> bytes:
    message = outcome.message or outcome.partial
    assert message is not None
    refusal = message.stop_reason == "refusal"
    rendered = render_items(message, ids, refusal)
    status, details = status_of(message)
    rid = ids.make("resp")
    error = outcome.error
    failure = None
    if error is not None and error.kind != "stream_interrupted":
        failure = {"code": error.provider_code or "server_error", "message": error.message or ""}
    if not stream:
        body = response_object(rid, model, rendered.output, status, details, usage_of(message), failure)
        return orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"
    ev = Events()
    start = response_object(rid, model, [], "in_progress", None, None)
    ev.add("response.created", response=start)
    ev.add("response.in_progress", response=start)
    if error is not None and error.kind == "stream_interrupted":
        stream_items(ev, rendered, close_last=False)
        last = rendered.output[-1] if rendered.output else {"type": "message", "id": ids.make("msg")}
        n = max(len(rendered.output) - 1, 0)
        if last["type"] == "function_call":
            ev.add("response.function_call_arguments.delta", item_id=last["id"], output_index=n, delta="")
        else:
            ev.add("response.output_text.delta", item_id=last["id"], output_index=n, content_index=0, delta="")
        frame = ev.frames[-1]
        ev.frames[-1] = frame[: frame.index(b'"delta":')]  # the connection drops inside the next frame
        return b"".join(ev.frames)
    stream_items(ev, rendered, close_last=failure is None)
    if failure is not None:
        ev.add(
            "error",
            error={
                "type": error.provider_code or "server_error",
                "code": error.provider_code,
                "message": error.message or "",
                "param": None,
            },
        )
        ev.add("response.failed", response=response_object(rid, model, rendered.output, "failed", None, None, failure))
        return b"".join(ev.frames)
    kind = {"completed": "response.completed", "incomplete": "response.incomplete", "failed": "response.failed"}[status]
    ev.add(kind, response=response_object(rid, model, rendered.output, status, details, usage_of(message)))
    if COMMENT is not None:
        comment = f"{COMMENT}\n\n".encode()
        return comment + b"".join(f + (comment if n % 5 == 4 else b"") for n, f in enumerate(ev.frames))
    return b"".join(ev.frames)


OPENAI_ERRORS: dict[str, tuple[int, dict[str, Any]]] = {
    "overloaded": (
        503,
        {
            "message": "The engine is currently overloaded, please try again later.",
            "type": "server_error",
            "param": None,
            "code": None,
        },
    ),
    "server": (
        500,
        {
            "message": "The server had an error while processing your request. Sorry about that!",
            "type": "server_error",
            "param": None,
            "code": None,
        },
    ),
}
"""`--openai-errors`: an HTTP error of another dialect, as OpenAI answers that kind (wire reference §1.5)."""


def openai_error(runtime: ReferenceRuntime, source: str, it: Interaction) -> tuple[int, bytes]:
    response = it.response
    outcome = Outcome.model_validate(
        runtime.decode(source, response.status, response.flat_headers(), [response.body], False)
    )
    assert outcome.error is not None
    status, envelope = OPENAI_ERRORS[outcome.error.kind]
    return status, orjson.dumps({"error": envelope})


# cassettes ----------------------------------------------------------------------------------------


def _headers(target: str, ids: Ids, source: dict[str, list[str]], content_type: str) -> dict[str, list[str]]:
    uuid = _hex(*ids.seed, "uuid", n=32)
    uuid = f"{uuid[:8]}-{uuid[8:12]}-{uuid[12:16]}-{uuid[16:20]}-{uuid[20:]}"
    out: dict[str, list[str]] = {"content-type": [content_type], "date": ["Mon, 23 Nov 2026 12:00:00 GMT"]}
    for name, values in FRAMING.get(target, {}).items():
        out[name] = [v.replace("{uuid}", uuid).replace("{short}", uuid[:20]) for v in values]
    if target not in NO_REQUEST_ID:
        out[REQUEST_ID.get(target, "x-request-id")] = [f"req_{_hex(*ids.seed, 'req', n=32)}"]
    for name, values in source.items():
        if name.lower() in KEPT_HEADERS and not (target in NO_RATE_LIMIT_HEADERS and name.lower() != "retry-after"):
            out[name] = values
    return out


def _chat_conversation(body: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions request body read back into the canonical conversation it encodes."""
    names: dict[str, str] = {}
    messages: list[dict[str, Any]] = []
    for m in body.get("messages", []):
        role, content = m["role"], m.get("content")
        blocks: list[dict[str, Any]] = []
        if isinstance(content, str) and content:
            blocks.append({"type": "text", "text": content})
        elif isinstance(content, list):
            blocks += [{"type": "text", "text": part["text"]} for part in content if part.get("type") == "text"]
        if role == "tool":
            messages.append(
                {
                    "role": "tool_result",
                    "tool_call_id": m["tool_call_id"],
                    "tool_name": names.get(m["tool_call_id"], ""),
                    "content": blocks,
                }
            )
            continue
        for call in m.get("tool_calls") or []:
            names[call["id"]] = call["function"]["name"]
            args = orjson.loads(call["function"]["arguments"] or "{}")
            blocks.append({"type": "tool_call", "id": call["id"], "name": call["function"]["name"], "arguments": args})
        messages.append({"role": "system" if role == "developer" else role, "content": blocks})
    conv: dict[str, Any] = {"messages": messages}
    tools = [t["function"] for t in body.get("tools") or []]
    if tools:
        conv["tools"] = tools
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    if limit is not None:
        conv["options"] = {"max_tokens": limit}
    return conv


def translate_request(body: bytes | None, source: str, target: str, model: str | None) -> bytes | None:
    """A later (or summarisation) request of the source cassette as the target sends it: the same
    bytes within the Gemini dialect (the model is in the URL), otherwise the Chat Completions
    request read back into its conversation and encoded for the target."""
    if body is None:
        return None
    from conformance.runtime.reference import parse_conversation

    src, dst = get_profile(source), get_profile(target)
    if src.dialect == dst.dialect == "gemini":
        return body
    if src.dialect != "openai_chat":
        return None
    conv = _chat_conversation(orjson.loads(body))
    if model:
        conv["model"] = model
    return orjson.dumps(ReferenceRuntime().wire_request(parse_conversation(conv), dst).body)


def request_uri(scenario: Any, target: str) -> str:
    """The URL the target's requests for this scenario go to (a context scenario's session, which
    the scenario's conversation does not hold, is asked for with the same model)."""
    from conformance.runtime.reference import parse_conversation

    conv = scenario.conversation(target)
    if not conv["messages"]:
        conv = {**conv, "messages": [{"role": "user", "content": [{"type": "text", "text": "."}]}]}
    return ReferenceRuntime().wire_request(parse_conversation(conv), get_profile(target)).url(get_profile(target))


def author(
    kind: str, source: str, target: str, scenario_id: str, today: str, model: str, openai_errors: bool = False
) -> dict[str, Any]:
    scenario = next(iter(load_scenarios(ROOT / "scenarios", only=[scenario_id])))
    src_path = scenario.cassette_path(source, ROOT)
    cassette = load_cassette(src_path)
    out_name = src_path.stem if src_path.parent.name == source else scenario_id
    profile = get_profile(target)
    runtime = ReferenceRuntime()
    interactions: list[Interaction] = []
    rendered_messages: list[tuple[Outcome, Ids, bool]] = []
    first_body = cassette.interactions[0].request.json() if cassette.interactions else None
    uri = request_uri(scenario, target)
    for i, it in enumerate(cassette.interactions):
        ids = Ids(target, out_name, i)
        request_body = None
        if get_profile(source).dialect == profile.dialect == "gemini":
            request_body = it.request.body  # the same dialect's bytes: the model is in the URL
        elif scenario.check == "context" or {"compaction", "history_trimming"} & set(
            scenario.spec.input.get("runtime") or {}
        ):  # summarisation and trimmed requests are the scenario's own, not the encoder's first request
            entry = scenario.entry(target)
            request_body = translate_request(it.request.body, source, target, entry.model if entry else None)
        elif i > 0 and it.request.json() not in (None, first_body):
            request_body = compressed_request(scenario, target)  # the retry after compressing tool results
        stream = it.request.stream_requested()
        status = it.response.status
        body, ctype = it.response.body, (it.response.headers.get("content-type") or ["application/json"])[-1]
        if kind == "responses" and status < 400:
            outcome = Outcome.model_validate(
                runtime.decode(source, status, it.response.flat_headers(), [it.response.body], stream)
            )
            seed = answer_seed(outcome)
            body = render_answer(outcome, stream=stream, ids=Ids(target, seed, i), model=model)
            ctype = "text/event-stream; charset=utf-8" if stream else "application/json"
            rendered_messages.append((outcome, Ids(target, seed, i), stream))
        elif status >= 400 and openai_errors:
            status, body = openai_error(runtime, source, it)
            ctype = "application/json"
        elif kind == "reframe":
            source_model = str(cassette.meta.get("model") or "")
            if source_model and model:
                body = body.replace(source_model.encode(), model.encode())
            if status >= 400 and target in ERROR_REFRAMERS:
                body = ERROR_REFRAMERS[target](status, body)
            else:
                body = REFRAMERS.get(target, lambda b, stream: b)(body, stream)
        interactions.append(
            Interaction(
                request=RecordedRequest(
                    method="POST",
                    uri=uri,
                    body=request_body,
                    headers={"content-type": ["application/json"]},
                ),
                response=RecordedResponse(
                    status=status,
                    body=body,
                    headers=_headers(target, ids, it.response.headers, ctype),
                    reason="Service Unavailable" if status == 503 and it.response.status != 503 else it.response.reason,
                ),
            )
        )
    meta = {
        "provider": target,
        "scenario": out_name,
        "model": model,
        "endpoint": "/responses" if kind == "responses" else urlsplit(uri).path,
        "source": f"authored by scripts/author_cassettes.py ({kind}) from {src_path.relative_to(ROOT)}",
        "authored": today,
        "harness_version": __version__,
    }
    out_path = ROOT / "cassettes" / target / f"{out_name}.yaml"
    out_path.parent.mkdir(parents=True, exist_ok=True)
    save_cassette(Cassette(path=out_path, interactions=interactions, meta=meta))
    return override(scenario, source, rendered_messages)


def compressed_request(scenario: Any, target: str) -> bytes:
    """The request a retry sends once the scenario's tool results are compressed (the same rule as
    the turn loop: `runtime.compress`, at the scenario's threshold)."""
    from conformance.runtime.compress import DEFAULT_THRESHOLD, compress_tool_results
    from conformance.runtime.reference import parse_conversation

    conv = parse_conversation(scenario.conversation(target))
    threshold = (scenario.spec.input.get("runtime") or {}).get("compress_threshold", DEFAULT_THRESHOLD)
    messages, _ = compress_tool_results(list(conv.messages), threshold)
    wire = ReferenceRuntime().wire_request(conv.model_copy(update={"messages": messages}), get_profile(target))
    return orjson.dumps(wire.body)


def override(scenario: Any, source: str, rendered: list[tuple[Outcome, Ids, bool]]) -> dict[str, Any]:
    """The target's expected form: the source's, with the ids, signatures and raw stop reason this
    script wrote (for retry scenarios: of the last answer)."""
    expected = scenario.expected_for(source)
    if not rendered or not isinstance(expected, dict):
        return expected if isinstance(expected, dict) else {}
    outcome, ids, stream = rendered[-1]
    message = outcome.message or outcome.partial
    assert message is not None
    items = render_items(message, ids, message.stop_reason == "refusal")
    key = "message" if "message" in expected else "partial"
    target = orjson.loads(orjson.dumps(expected))
    msg = target.get(key)
    if not isinstance(msg, dict):
        return target
    blocks = msg.get("content") or []
    for block, (signature, kind) in zip(blocks, items.by_block(), strict=False):
        if kind == "thinking" and block.get("type") == "redacted_thinking":
            block.pop("data", None)
            block.update({"type": "thinking", "thinking": ""})
        block["signature"] = signature
    status, details = status_of(message)
    if message.stop_reason is not None and outcome.error is None:
        msg["raw_stop_reason"] = details["reason"] if details else status
    elif outcome.error is not None and not stream:
        msg["raw_stop_reason"] = "failed"  # a failed response object; a stream fails on its error event
    return target


def minimal(base: Any, target: Any) -> Any:
    """An override that deep-merges `base` into `target` (None removes a key)."""
    if isinstance(base, dict) and isinstance(target, dict):
        out: dict[str, Any] = {}
        for k, v in target.items():
            if k not in base:
                out[k] = v
            elif base[k] != v:
                out[k] = minimal(base[k], v)
        for k in base:
            if k not in target:
                out[k] = None
        return out
    if isinstance(base, list) and isinstance(target, list) and len(base) <= len(target):
        return [
            minimal(b, t) if b != t else ({} if isinstance(b, dict) else t) for b, t in zip(base, target, strict=False)
        ] + target[len(base) :]
    return target


def write_entry(scenario_path: Path, target: str, entry: str, ov: Any) -> None:
    """Put `providers.<target>` (and `overrides.<target>` when there is one) into a scenario file,
    replacing the target's earlier one-line entries; the rest of the file is left as written."""
    lines = scenario_path.read_text(encoding="utf-8").splitlines()
    lines = [ln for ln in lines if not ln.startswith(f"  {target}: ")]
    out: list[str] = []
    for ln in lines:
        out.append(ln)
        if ln == "providers:":
            out.append(f"  {target}: {entry}")
        elif ln == "overrides:" and ov:
            out.append(f"  {target}: {orjson.dumps(ov).decode()}")
    if ov and "overrides:" not in lines:
        out += ["overrides:", f"  {target}: {orjson.dumps(ov).decode()}"]
    scenario_path.write_text("\n".join(out) + "\n", encoding="utf-8")


def write_sdk_note(scenario_path: Path, target: str, note: str) -> None:
    """Put `sdk.<target>` (why the official SDK reads these bytes differently) into a scenario file."""
    lines = scenario_path.read_text(encoding="utf-8").splitlines()
    if "sdk:" not in lines:
        return
    at = lines.index("sdk:") + 1
    end = next((n for n in range(at, len(lines)) if not lines[n].startswith(" ")), len(lines))
    if any(ln.startswith(f"  {target}: ") for ln in lines[at:end]):
        return
    lines.insert(at, f"  {target}: {orjson.dumps(note).decode()}")
    scenario_path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def clone(source: str, target: str, today: str, model: str) -> None:
    """Every scenario entry of `source` given to `target`: cassettes reframed, overrides and
    expectations carried over, provider facts restated for the target."""
    for scenario in load_scenarios(ROOT / "scenarios"):
        entry = scenario.entry(source)
        if entry is None or scenario.entry(target) is not None:
            continue
        if entry.unsupported:
            fact = f"as on {TITLES[source]}: {entry.unsupported}"
            write_entry(scenario.path, target, orjson.dumps({"unsupported": fact}).decode(), None)
            continue
        data = entry.model_dump(exclude_none=True, exclude_defaults=True)
        if entry.cassette:
            data["cassette"] = f"cassettes/{target}/{Path(entry.cassette).name}"
        if scenario.check in ("decode", "retry", "context") and scenario.cassette_path(source, ROOT).is_file():
            author("reframe", source, target, scenario.id, today, model)
        expected = scenario.spec.expected
        ov = minimal(expected, scenario.expected_for(source)) if expected is not None else scenario.expected_for(source)
        write_entry(scenario.path, target, orjson.dumps(data).decode(), ov)
        note = scenario.spec.sdk.get(source)
        if note:
            write_sdk_note(scenario.path, target, note)


def compat(target: str, today: str, model: str, facts: dict[str, str]) -> list[str]:
    """An OpenAI-compatible server's column: the target's own facts first, then the OpenAI
    column's cassettes and expectations (reframed), then Groq's provider facts restated for the
    target (another OpenAI-compatible host). Returns the scenarios left without an entry."""
    left: list[str] = []
    for scenario in load_scenarios(ROOT / "scenarios"):
        if scenario.entry(target) is not None:
            continue
        if scenario.id in facts:
            write_entry(scenario.path, target, orjson.dumps({"unsupported": facts[scenario.id]}).decode(), None)
            continue
        entry = scenario.entry("openai")
        has_cassette = scenario.check not in ("decode", "retry") or scenario.cassette_path("openai", ROOT).is_file()
        if entry is not None and not entry.unsupported and has_cassette:
            data = entry.model_dump(exclude_none=True, exclude_defaults=True)
            if entry.cassette:
                data["cassette"] = f"cassettes/{target}/{Path(entry.cassette).name}"
            if scenario.check in ("decode", "retry") or (
                scenario.check == "context" and scenario.cassette_path("openai", ROOT).is_file()
            ):
                author("reframe", "openai", target, scenario.id, today, model)
            expected = scenario.spec.expected
            ov = (
                minimal(expected, scenario.expected_for("openai"))
                if expected is not None
                else scenario.expected_for("openai")
            )
            write_entry(scenario.path, target, orjson.dumps(data).decode(), ov)
            note = scenario.spec.sdk.get("openai")
            if note:
                write_sdk_note(scenario.path, target, note)
            continue
        groq = scenario.entry("groq")
        if groq is not None and groq.unsupported:
            fact = groq.unsupported.replace("Groq", NAMES[target])
            write_entry(scenario.path, target, orjson.dumps({"unsupported": fact}).decode(), None)
            continue
        left.append(scenario.id)
    return left


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["responses", "reframe", "clone", "compat"])
    parser.add_argument("--facts", help="compat: a JSON file of scenario id → the target's provider fact")
    parser.add_argument("--source", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--model", help="the model the scenario entry asks for (and the answers name)")
    parser.add_argument("--openai-errors", action="store_true", help="HTTP errors in OpenAI's envelope")
    parser.add_argument("--comment", help="an SSE keep-alive comment line of the target, e.g. ': PROCESSING'")
    parser.add_argument("--thinking-last", action="store_true", help="reasoning items after the others")
    parser.add_argument("scenarios", nargs="*")
    args = parser.parse_intermixed_args(argv)
    global THINKING_LAST, COMMENT
    THINKING_LAST = args.thinking_last
    COMMENT = args.comment
    today = datetime.now(UTC).date().isoformat()
    if args.kind == "compat":
        facts = orjson.loads(Path(args.facts).read_bytes()) if args.facts else {}
        left = compat(args.target, today, args.model or MODELS[args.target], facts)
        print("\n".join(left))
        return 0
    if args.kind == "clone":
        clone(args.source, args.target, today, args.model or MODELS[args.target])
        return 0
    for scenario_id in args.scenarios:
        scenario = next(iter(load_scenarios(ROOT / "scenarios", only=[scenario_id])))
        source_entry = scenario.entry(args.source)
        shared = source_entry.cassette if source_entry is not None and source_entry.cassette else None
        entry = {"model": args.model} if args.model else {}
        if shared:  # another scenario's cassette: point at the target's copy of it (authored there)
            entry["cassette"] = f"cassettes/{args.target}/{Path(shared).name}"
        model = args.model or MODELS[args.target]
        target_expected = author(args.kind, args.source, args.target, scenario_id, today, model, args.openai_errors)
        ov = minimal(scenario.spec.expected, target_expected)
        write_entry(scenario.path, args.target, orjson.dumps(entry).decode(), ov)
        print(f"{scenario_id}\t{orjson.dumps(ov).decode()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
