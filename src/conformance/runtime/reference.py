"""The reference runtime: the `Runtime` protocol implemented with this package's codecs."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from conformance.capabilities import ProviderProfile, get_profile
from conformance.codecs import WireRequest, codec_for, decode_response
from conformance.exceptions import InputError
from conformance.model import MESSAGES_ADAPTER, Conversation, Message

_UNION_TAGS = frozenset(
    {
        "system",
        "user",
        "assistant",
        "tool_result",
        "text",
        "image",
        "thinking",
        "redacted_thinking",
        "tool_call",
    }
)


def validation_where(exc: ValidationError, prefix: str = "") -> str:
    """`messages[2].content[0].text` from a pydantic error location."""
    loc = exc.errors()[0]["loc"] if exc.errors() else ()
    out = prefix
    previous: object = None
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(previous, int) and part in _UNION_TAGS:
            pass  # the discriminator tag pydantic inserts after a list index
        else:
            out += f".{part}" if out else str(part)
        previous = part
    return out or "(top level)"


def parse_conversation(data: Any, *, where: str = "conversation") -> Conversation:
    try:
        return Conversation.model_validate(data)
    except ValidationError as exc:
        msg = exc.errors()[0]["msg"]
        raise InputError(msg, where=f"{where}: {validation_where(exc)}") from None


def parse_messages(data: Any, *, where: str = "messages") -> list[Message]:
    try:
        return MESSAGES_ADAPTER.validate_python(data)
    except ValidationError as exc:
        msg = exc.errors()[0]["msg"]
        raise InputError(msg, where=f"{where}: {validation_where(exc, 'messages')}") from None


class ReferenceRuntime:
    name = "reference"

    def wire_request(self, conversation: Conversation, profile: ProviderProfile) -> WireRequest:
        """prepare (repair, schemas, budget, options) → the dialect's encoder."""
        from conformance.runtime.prepare import prepare

        return codec_for(profile).encode(prepare(conversation, profile).conversation, profile)

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        profile = get_profile(provider)
        return self.wire_request(parse_conversation(conversation), profile).body

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        profile = get_profile(provider)
        outcome = decode_response(
            codec_for(profile), profile, status, headers, b"".join(chunks), stream_hint=stream, chunks=chunks
        )
        return outcome.to_json()

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        from conformance.runtime.repair import RepairOptions, repair

        try:
            opts = RepairOptions(**(options or {}))
        except TypeError as exc:
            raise InputError(str(exc), where="repair options") from None
        return repair(parse_messages(messages), get_profile(provider), model=model, options=opts).to_json()

    def store_session(self, backend: str, directory: str, options: dict[str, Any] | None = None) -> Any:
        """The `store` capability: a session over `conformance.store` (see docs/store.md)."""
        from conformance.store.session import StoreSession

        return StoreSession(backend, directory, options)
