"""Stream events, emitted by the shared message builder as a stream is decoded.

Plain frozen dataclasses rather than pydantic models: a long stream makes one per delta, they are
built from values the decoder already checked, and they are not part of the JSON contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from conformance.model.errors import ProviderError
from conformance.model.messages import AssistantMessage


@dataclass(frozen=True, slots=True, kw_only=True)
class StartEvent:
    type: Literal["start"] = "start"


@dataclass(frozen=True, slots=True, kw_only=True)
class TextDeltaEvent:
    index: int
    delta: str
    type: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkingDeltaEvent:
    index: int
    delta: str
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallStartEvent:
    index: int
    id: str | None
    name: str | None
    type: Literal["toolcall_start"] = "toolcall_start"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallDeltaEvent:
    index: int
    delta: str
    type: Literal["toolcall_delta"] = "toolcall_delta"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallEndEvent:
    index: int
    type: Literal["toolcall_end"] = "toolcall_end"


@dataclass(frozen=True, slots=True, kw_only=True)
class DoneEvent:
    message: AssistantMessage
    type: Literal["done"] = "done"


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorEvent:
    error: ProviderError
    partial: AssistantMessage | None = None
    type: Literal["error"] = "error"


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
