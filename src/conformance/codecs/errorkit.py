"""Shared pieces of error classification: retry hints, context-overflow patterns, key redaction.

Dialects keep their own vocabulary tables in `codecs/<dialect>/errors.py`; what every dialect
needs the same way lives here, as tables.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from conformance.model import ErrorKind, ProviderError
from conformance.secrets import redact

__all__ = ["redact"]  # re-exported: the one redaction lives in conformance.secrets

# HTTP status → kind when the body says nothing more specific.
STATUS_KINDS: dict[int, ErrorKind] = {
    400: "invalid_request",
    401: "auth",
    402: "permission",
    403: "permission",
    404: "not_found",
    408: "timeout",
    409: "server",
    413: "payload_too_large",
    422: "invalid_request",
    429: "rate_limited",
    499: "timeout",
    500: "server",
    502: "server",
    503: "overloaded",
    504: "timeout",
    529: "overloaded",
}


def kind_for_status(status: int | None) -> ErrorKind:
    if status is None:
        return "server"
    if status in STATUS_KINDS:
        return STATUS_KINDS[status]
    return "server" if status >= 500 else "invalid_request"


# Context-window errors, recognised by message across providers (one pattern per wording).
CONTEXT_OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"maximum context length is \d+ tokens",  # OpenAI, DeepSeek, Groq, OpenRouter, vLLM
        r"context_length_exceeded",
        r"exceeds the context window",  # OpenAI Responses
        r"prompt is too long: \d+ tokens > \d+ maximum",  # Anthropic
        r"input length and `?max_tokens`? exceed context limit",  # Anthropic
        r"input token count \(\d+\) exceeds the maximum number of tokens allowed",  # Gemini
        r"too large for model with \d+ maximum context length",  # Mistral
        r"prompt too long; exceeded (max )?context length",  # xAI
        r"this model's maximum prompt length is \d+",  # xAI
        r"input length [^\n]{0,200}? exceeds (the )?(maximum|context) ",  # Ollama / llama.cpp wording
        r"requested \d{1,12} tokens [^\n]{0,200}? context (length|window)",  # generic gateways
        r"prompt is too long: \d+, model maximum context length: \d+",  # Fireworks, Ollama cloud models
    )
)


OVERFLOW_SCAN_CHARS = 8192
"""How much of an error message is searched for a context-overflow wording (the wordings are one
sentence near the start; a longer message from a hostile server is not scanned to its end)."""


def is_context_overflow(text: str | None) -> bool:
    """Whether a message says the context window was exceeded. Every pattern is linear (a bounded
    gap instead of `.*`, which is retried from every occurrence of its prefix), and only the first
    `OVERFLOW_SCAN_CHARS` characters are searched."""
    head = (text or "")[:OVERFLOW_SCAN_CHARS]
    return bool(head) and any(p.search(head) for p in CONTEXT_OVERFLOW_PATTERNS)


MAX_DURATION_CHARS = 64
"""A longer duration header is not a duration (parsed digit runs would cost time for nothing)."""
_DURATION = re.compile(r"(\d{1,20}(?:\.\d{1,20})?)(ms|h|m|s)")
_DURATION_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(value: str) -> float | None:
    """Go-style durations (`6m0s`, `1.5s`, `12ms`) and protobuf durations (`34.4s`) → seconds."""
    value = value.strip()
    if not value or len(value) > MAX_DURATION_CHARS:
        return None
    total, pos = 0.0, 0
    while pos < len(value):  # anchored at the cursor: one attempt per part, never a search
        match = _DURATION.match(value, pos)
        if match is None:
            return None
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        pos = match.end()
    return total


def _header(headers: Mapping[str, str], name: str) -> str | None:
    lname = name.lower()
    for key, value in headers.items():
        if key.lower() == lname:
            return value
    return None


def retry_after_from_headers(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Seconds to wait, from `retry-after-ms`, `retry-after` (seconds or HTTP date), then the
    reset headers (`x-ratelimit-reset-*` durations, `anthropic-ratelimit-*-reset` RFC 3339)."""
    if (ms := _header(headers, "retry-after-ms")) is not None:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    if (ra := _header(headers, "retry-after")) is not None:
        ra = ra.strip()
        try:
            return max(float(ra), 0.0)
        except ValueError:
            try:
                when = parsedate_to_datetime(ra)
            except (TypeError, ValueError):
                when = None
            if when is not None:
                ref = now or datetime.now(UTC)
                return max((when - ref).total_seconds(), 0.0)
    waits: list[float] = []
    for key, value in headers.items():
        lkey = key.lower()
        if lkey.startswith("x-ratelimit-reset"):
            seconds = parse_duration(value)
            if seconds is not None:
                waits.append(seconds)
        elif lkey.startswith("anthropic-ratelimit-") and lkey.endswith("-reset"):
            try:
                when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            except ValueError:
                continue
            ref = now or datetime.now(UTC)
            waits.append(max((when - ref).total_seconds(), 0.0))
    return max(waits) if waits else None


def make_error(
    kind: ErrorKind,
    *,
    status: int | None,
    message: str = "",
    provider_code: str | None = None,
    retry_after_s: float | None = None,
) -> ProviderError:
    """A `ProviderError` with the key-shaped parts of the message redacted; a message that speaks
    of a context-window overflow makes the kind `context_overflow`, and a 413 `payload_too_large`."""
    if kind == "invalid_request" and is_context_overflow(message):
        kind = "context_overflow"
    elif kind == "invalid_request" and status == 413:
        kind = "payload_too_large"  # a generic "invalid request" type on a 413 is the size limit
    return ProviderError(
        kind=kind,
        status=status,
        message=redact(message),
        provider_code=provider_code,
        retry_after_s=retry_after_s,
    )
