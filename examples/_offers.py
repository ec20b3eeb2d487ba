"""What the example libraries declare they do not do, shared by their adapters."""

from __future__ import annotations

from conformance.capabilities import get_profile, provider_names

NOT_OFFERED = frozenset({"auth_rotation", "retry_compress", "history_trim", "auto_compaction", "proxy_recovery"})
"""None of the libraries does these: a client holds one key (no rotation), a 413 or an overflow is
returned, not compressed and retried, and no history is kept to trim, compact or repair for a Gemini proxy."""

SDK_EXPOSED = frozenset(
    {"message.raw_stop_reason", "message.usage", "error.status", "error.provider_code", "error.message", "partial"}
)
"""The official SDKs parse `retry-after` for their own retries but expose no parsed value on their exceptions."""


def dialect_providers(*dialects: str) -> frozenset[str]:
    """The registered providers that speak one of `dialects`."""
    return frozenset(p for p in provider_names() if get_profile(p).dialect in dialects)
