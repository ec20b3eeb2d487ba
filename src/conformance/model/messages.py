"""Messages, discriminated on `role` (see docs/normalized-form.md).

`content` also accepts a plain string on input (shorthand for one text block); output is always
a list of blocks.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from conformance.model.blocks import AssistantBlock, TextBlock, UserBlock, UserMessageBlock
from conformance.model.errors import ProviderError
from conformance.model.usage import Usage

StopReason = Literal["stop", "length", "tool_use", "content_filter", "refusal", "error", "aborted"]


def _text_shorthand(value: Any) -> Any:
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    return value


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("content", mode="before", check_fields=False)
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return _text_shorthand(value)


class SystemMessage(_Message):
    """The system prompt."""

    role: Literal["system"] = "system"
    content: list[TextBlock]


class UserMessage(_Message):
    """A user turn: text, images, and answers to provider-side work (`server_tool` blocks)."""

    role: Literal["user"] = "user"
    content: list[UserMessageBlock]


class Source(BaseModel):
    """A web source the answer draws on; `[n]` markers in the text count from 1 in `sources`."""

    model_config = ConfigDict(extra="forbid")

    url: str
    title: str | None = None


class AssistantMessage(_Message):
    """A model turn as decoded: content blocks, stop reason, usage, and `error` when it failed."""

    role: Literal["assistant"] = "assistant"
    content: list[AssistantBlock] = Field(default_factory=list)
    stop_reason: StopReason | None = None
    raw_stop_reason: str | None = None
    usage: Usage | None = None
    provider: str | None = None
    model: str | None = None
    error: ProviderError | None = None
    sources: list[Source] | None = None
    """The web sources a searching provider lists with its answer (Perplexity), in its order."""


class ToolResultMessage(_Message):
    """The result of the tool call `tool_call_id`; `is_error` when the tool failed."""

    role: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    tool_name: str | None = None
    content: list[UserBlock] = Field(default_factory=list)
    is_error: bool = False


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage,
    Field(discriminator="role"),
]

MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)
MESSAGES_ADAPTER: TypeAdapter[list[Message]] = TypeAdapter(list[Message])


def parse_message(data: Any) -> Message:
    """Validate one message from its JSON form."""
    return MESSAGE_ADAPTER.validate_python(data)


def dump(model: BaseModel) -> dict[str, Any]:
    """The contract's JSON form: null fields omitted."""
    return model.model_dump(mode="json", exclude_none=True)


def text_of(blocks: list[Any]) -> str:
    """Concatenated text of the text blocks in `blocks`."""
    return "".join(b.text for b in blocks if isinstance(b, TextBlock))
