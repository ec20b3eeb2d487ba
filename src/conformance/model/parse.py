"""Parse user-supplied JSON into the canonical model; errors name the field (`messages[2].content[0].text`)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from conformance.exceptions import InputError
from conformance.model.conversation import Conversation
from conformance.model.messages import MESSAGES_ADAPTER, Message

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
        "server_tool",
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
    """Validate a conversation from its JSON form; `InputError` naming the field otherwise."""
    try:
        return Conversation.model_validate(data)
    except ValidationError as exc:
        msg = exc.errors()[0]["msg"]
        raise InputError(msg, where=f"{where}: {validation_where(exc)}") from None


def parse_messages(data: Any, *, where: str = "messages") -> list[Message]:
    """Validate a list of messages from its JSON form; `InputError` naming the field otherwise."""
    try:
        return MESSAGES_ADAPTER.validate_python(data)
    except ValidationError as exc:
        msg = exc.errors()[0]["msg"]
        raise InputError(msg, where=f"{where}: {validation_where(exc, 'messages')}") from None
