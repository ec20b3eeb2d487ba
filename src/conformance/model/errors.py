"""Provider errors as data: what a provider answered, classified."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

ErrorKind = Literal[
    "invalid_request",
    "context_overflow",
    "rate_limited",
    "auth",
    "permission",
    "not_found",
    "overloaded",
    "server",
    "timeout",
    "payload_too_large",
    "stream_interrupted",
    "content_filter",
]

ERROR_KINDS: tuple[ErrorKind, ...] = (
    "invalid_request",
    "context_overflow",
    "rate_limited",
    "auth",
    "permission",
    "not_found",
    "overloaded",
    "server",
    "timeout",
    "payload_too_large",
    "stream_interrupted",
    "content_filter",
)


class ProviderError(BaseModel):
    """What a provider answered instead of a message, classified into a `kind` (data, not an exception)."""

    model_config = ConfigDict(extra="forbid")

    kind: ErrorKind
    status: int | None = None
    retry_after_s: float | None = None
    provider_code: str | None = None
    message: str = ""
