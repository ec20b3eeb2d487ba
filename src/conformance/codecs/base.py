"""What every dialect provides, and the one function that turns a response into an `Outcome`.

A dialect package (`codecs/<dialect>/`) has the same small modules: `encode` (conversation →
`WireRequest`), `decode` (a JSON body → message), `stream` (an accumulator fed raw bytes) and
`errors` (status + headers + body → `ProviderError`). `Codec` bundles them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from conformance import jsonvalue
from conformance.capabilities import ProviderProfile
from conformance.codecs.validation import Validator
from conformance.exceptions import WireFormatError
from conformance.model import AssistantMessage, Conversation, Outcome, ProviderError, StreamEvent


@dataclass(frozen=True)
class WireRequest:
    """An HTTP request without credentials; `auth.apply` adds them."""

    method: str
    path: str
    """Relative to the profile's base URL; may carry a query string."""
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    stream: bool = False

    def url(self, profile: ProviderProfile) -> str:
        """The full URL: the profile's base URL joined to `path`."""
        return profile.base_url.rstrip("/") + self.path


class StreamAccumulator(Protocol):
    """Per-stream state. Created fresh for every response; never reused."""

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        """Take the next raw bytes (any split, even mid-line or mid-character); the events they complete."""
        ...

    def finish(self) -> AssistantMessage:
        """The message so far; `error` is set when the stream failed or was cut off."""
        ...


class StreamFactory(Protocol):
    """Makes the per-response `StreamAccumulator` of a dialect."""

    def __call__(self, profile: ProviderProfile, *, events: bool = True) -> StreamAccumulator:
        """A fresh accumulator; `events=False` when only the final message is wanted (no stream
        events are built, and `feed` returns an empty list)."""
        ...


@dataclass(frozen=True)
class Codec:
    """One wire dialect: its encoder, decoders, error classifier and request validator.

    Register one with `conformance.codecs.register_codec` to add a dialect."""

    dialect: str
    encode: Callable[[Conversation, ProviderProfile], WireRequest]
    decode: Callable[[Any, ProviderProfile], AssistantMessage]
    """Parsed JSON body of a successful non-streaming response → message."""
    stream: StreamFactory
    classify: Callable[[int, Mapping[str, str], bytes, ProviderProfile], ProviderError]
    stream_content_types: tuple[str, ...] = ("text/event-stream",)
    validate: Validator | None = None
    """The dialect's documented request rules, checked on a wire body (None: no rules checked)."""
    server_tools: bool = False
    """The encoder sends `options.server_tools` (tools the provider runs itself); elsewhere asking
    for them is an `UnsupportedFeatureError`."""
    calls_end_plainly: frozenset[str] = frozenset()
    """Raw stop reasons with which the provider ends a message of tool calls as it ends any other
    (it has no tool-call reason): Gemini's `STOP`, Ollama's `stop`."""
    restream: Callable[[Any, Any], bytes] | None = None
    """A successful JSON answer (parsed) → the same answer in the dialect's stream form
    (`stream_content_types[0]`), for the request body given (`codecs.restream`); None: not written."""


def header(headers: Mapping[str, str], name: str) -> str | None:
    """Case-insensitive header lookup."""
    lname = name.lower()
    for key, value in headers.items():
        if key.lower() == lname:
            return value
    return None


def load_json(body: bytes, *, where: str = "response body") -> Any:
    """Parse a JSON body; leading blank lines (DeepSeek keep-alives) are allowed."""
    try:
        return jsonvalue.loads(body.strip() or b"null")
    except orjson.JSONDecodeError as exc:
        raise WireFormatError(f"not valid JSON ({exc})", where=where) from None


def is_stream(codec: Codec, headers: Mapping[str, str], stream_hint: bool | None) -> bool:
    """Whether a response is a stream: by content type, else by `stream_hint` (the request asked for one)."""
    content_type = (header(headers, "content-type") or "").split(";")[0].strip().lower()
    if content_type in codec.stream_content_types:
        return True
    if content_type == "application/json":
        return False
    return bool(stream_hint)


def decode_response(
    codec: Codec,
    profile: ProviderProfile,
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    *,
    stream_hint: bool | None = None,
    chunks: list[bytes] | None = None,
) -> Outcome:
    """Status + headers + body → `Outcome`. `chunks` re-splits a stream body (for properties)."""
    if status >= 400:
        return Outcome(error=codec.classify(status, headers, body, profile))
    if is_stream(codec, headers, stream_hint):
        acc = codec.stream(profile, events=False)  # only the message is kept
        for chunk in chunks if chunks is not None else [body]:
            acc.feed(chunk)
        return Outcome.of(acc.finish())
    data = load_json(body)
    return Outcome.of(codec.decode(data, profile))
