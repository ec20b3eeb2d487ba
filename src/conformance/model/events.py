"""Stream events, emitted by the shared message builder as a stream is decoded.

Plain slotted dataclasses rather than pydantic models: a long stream makes one per delta, they are
built from values the decoder already checked, and they are not part of the JSON contract. They
are not `frozen` (that triples the cost of building one) and their `type` is a class attribute,
not a field; treat them as read-only values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from conformance.model.errors import ProviderError
from conformance.model.messages import AssistantMessage


@dataclass(slots=True, kw_only=True)
class StartEvent:
    """The stream began."""

    type: ClassVar[Literal["start"]] = "start"


@dataclass(slots=True)
class TextDeltaEvent:
    """Built positionally on the hot path: `TextDeltaEvent(index, delta)`."""

    index: int
    delta: str
    type: ClassVar[Literal["text_delta"]] = "text_delta"


@dataclass(slots=True)
class ThinkingDeltaEvent:
    """Built positionally on the hot path: `ThinkingDeltaEvent(index, delta)`."""

    index: int
    delta: str
    type: ClassVar[Literal["thinking_delta"]] = "thinking_delta"


@dataclass(slots=True, kw_only=True)
class ToolCallStartEvent:
    """A tool call opened at block `index` (id and name when the wire gave them)."""

    index: int
    id: str | None
    name: str | None
    type: ClassVar[Literal["toolcall_start"]] = "toolcall_start"


@dataclass(slots=True)
class ToolCallDeltaEvent:
    """Built positionally on the hot path: `ToolCallDeltaEvent(index, delta)`."""

    index: int
    delta: str
    type: ClassVar[Literal["toolcall_delta"]] = "toolcall_delta"


@dataclass(slots=True, kw_only=True)
class ToolCallEndEvent:
    """The tool call at block `index` is complete."""

    index: int
    type: ClassVar[Literal["toolcall_end"]] = "toolcall_end"


@dataclass(slots=True, kw_only=True)
class DoneEvent:
    """The stream ended normally with this message."""

    message: AssistantMessage
    type: ClassVar[Literal["done"]] = "done"


@dataclass(slots=True, kw_only=True)
class ErrorEvent:
    """The stream failed; `partial` is what arrived before."""

    error: ProviderError
    partial: AssistantMessage | None = None
    type: ClassVar[Literal["error"]] = "error"


StreamEvent = (
    StartEvent
    | TextDeltaEvent
    | ThinkingDeltaEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent
)
