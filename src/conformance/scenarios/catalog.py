"""The feature catalog: the rows of the matrix, grouped as the report shows them; project roots add their own."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Feature:
    """A row of the matrix: its id (what scenario files name), report group and title."""

    id: str
    group: str
    title: str


GROUPS: tuple[str, ...] = (
    "responses",
    "streaming",
    "tools",
    "thinking",
    "requests",
    "repair",
    "errors & retries",
    "transcripts",
    "context",
    "generated",
    "store",
)

FEATURES: tuple[Feature, ...] = (
    # responses
    Feature("text", "responses", "Plain text response"),
    Feature("usage", "responses", "Usage normalized (cache and reasoning tokens counted once)"),
    Feature("stop_reasons", "responses", "Every stop reason mapped"),
    Feature("refusal", "responses", "Refusals"),
    # streaming
    Feature("stream_text", "streaming", "Streamed text, multibyte characters split across chunks"),
    Feature("stream_truncated", "streaming", "Stream cut off before its terminal event"),
    Feature("stream_error", "streaming", "Error event inside a 200 stream"),
    Feature("stream_framing", "streaming", "Keep-alive comments, blank lines and optional terminators"),
    Feature("stream_cancel", "streaming", "A streamed turn cancelled mid-way: stopped, typed, history whole"),
    # tools
    Feature("tool_call", "tools", "Single tool call (JSON and stream)"),
    Feature("parallel_tool_calls", "tools", "Parallel tool calls, interleaved or all on index 0"),
    Feature("empty_arguments", "tools", 'Empty tool arguments ("" and {})'),
    Feature("invalid_arguments", "tools", "Tool arguments that are not valid JSON"),
    Feature("prompt_tools", "tools", "Prompt-based tool calling for models without native tools"),
    Feature("server_tools", "tools", "Built-in (server) tool items kept as data and sent back"),
    Feature("tool_execution", "tools", "Tool calls run in order, timed out, aborted, depth-limited"),
    # thinking
    Feature("thinking_signature", "thinking", "Thinking with its signature kept byte-exact"),
    Feature("thinking_order", "thinking", "Thinking sent after text is kept whole"),
    Feature("redacted_thinking", "thinking", "Redacted thinking kept opaque"),
    Feature("reasoning_field", "thinking", "Reasoning text in a gateway field or <think> tags"),
    Feature("part_signatures", "thinking", "Signatures on text and tool-call parts"),
    # requests
    Feature("encode_basic", "requests", "System prompt, max tokens and options encoded"),
    Feature("encode_tools", "requests", "Tools and tool-result history encoded"),
    Feature("encode_thinking", "requests", "Thinking and signatures sent back (or withheld)"),
    Feature("tool_id_remap", "requests", "Tool-call ids remapped to the provider's pattern"),
    Feature("schema_sanitize", "requests", "Tool schemas sanitized for the provider"),
    # repair
    Feature("orphan_tool_results", "repair", "Orphaned and missing tool results repaired"),
    Feature("turn_order", "repair", "Role order and alternation repaired"),
    Feature("foreign_thinking", "repair", "Thinking from another provider or model"),
    Feature("empty_blocks", "repair", "Empty blocks and messages removed"),
    Feature("cross_provider", "repair", "Transcripts handed from one provider to another"),
    # errors & retries
    Feature("error_invalid_request", "errors & retries", "400 invalid request"),
    Feature("error_rate_limit", "errors & retries", "429 with its retry hint"),
    Feature("error_auth", "errors & retries", "Authentication errors"),
    Feature("error_not_found", "errors & retries", "Model not found"),
    Feature("error_overloaded", "errors & retries", "Overloaded and server errors"),
    Feature("context_overflow", "errors & retries", "Context window exceeded"),
    Feature("retry_backoff", "errors & retries", "Retry after the provider's hint"),
    Feature("retry_compress", "errors & retries", "Oversized tool results compressed and retried"),
    Feature("auth_rotation", "errors & retries", "Auth profiles rotated on 429 and 401"),
    Feature("provider_fallback", "errors & retries", "Another provider when the first fails on its side"),
    # transcripts
    Feature("jsonl_recovery", "transcripts", "Truncated and corrupted JSONL transcripts recovered"),
    # context
    Feature("token_count", "context", "Tokens counted from the last usage plus an estimate"),
    Feature("history_trim", "context", "History trimmed without separating a tool call from its result"),
    Feature("compaction", "context", "Older history compacted into a summary, each failure typed"),
    Feature("compaction_atomic", "context", "Summary and boundary written in one step; crashes recovered"),
    Feature("auto_compaction", "context", "Compaction at a threshold and on overflow, through the turn loop"),
    Feature("tool_result_cap", "context", "Tool results capped before they are persisted"),
    Feature("compat_flags", "context", "Model compatibility flags applied, or a typed error"),
    Feature("proxy_recovery", "context", "Gemini-proxy rejections recovered with proxy mode"),
    # generated
    Feature("generated_repair", "generated", "Generated pathological transcripts repaired"),
    Feature("generated_rechunk", "generated", "Every cassette decoded the same for any split"),
    Feature("generated_parity", "generated", "The same answer streamed and not streamed reads the same"),
    # store (provider-independent: the same verdict in every column)
    Feature("store_append_path", "store", "Roots, appends and the path a request is built from"),
    Feature("store_edit", "store", "Edits in place on a leaf, a branch when the node has children"),
    Feature("store_split", "store", "Splits at valid boundaries, never a tool result"),
    Feature("store_delete", "store", "Cascade delete, roots protected, bookmarks moved or removed"),
    Feature("store_reparent", "store", "Reparent without cycles, within the depth limit"),
    Feature("store_bookmarks", "store", "Bookmarks added, listed and resolved"),
    Feature("store_errors", "store", "Missing and malformed ids fail loudly and change nothing"),
    Feature("store_coalesce", "store", "Only text-only user/assistant messages coalesced; results correlated"),
    Feature("store_corruption", "store", "Planted corruption read loudly and reported by fsck"),
    Feature("store_concurrent_writes", "store", "Concurrent writers on one store lose and mix no record"),
)

FEATURE_IDS: frozenset[str] = frozenset(f.id for f in FEATURES)
"""The bundled catalog's ids; `known_feature_ids()` adds the features a project root declares."""

_DECLARED: dict[str, Feature] = {}


def register_feature(new: Feature) -> None:
    """Add a project's own feature (declared in its root's `conformance.yaml`) to the catalog.

    Declaring the same feature again is harmless; another group or title for a known id is an error."""
    known = next((f for f in FEATURES if f.id == new.id), None) or _DECLARED.get(new.id)
    if known is not None and known != new:
        raise ValueError(f"feature {new.id!r} is already in the catalog as {known.group!r}: {known.title!r}")
    _DECLARED[new.id] = new


def all_features() -> tuple[Feature, ...]:
    """The bundled catalog followed by the features project roots declared, in declaration order."""
    return FEATURES + tuple(f for f in _DECLARED.values() if f.id not in FEATURE_IDS)


def known_feature_ids() -> frozenset[str]:
    """Every feature id a scenario file may name."""
    return FEATURE_IDS | frozenset(_DECLARED)


def feature(feature_id: str) -> Feature:
    """The catalog feature `feature_id`; `KeyError` when there is none."""
    for f in all_features():
        if f.id == feature_id:
            return f
    raise KeyError(feature_id)
