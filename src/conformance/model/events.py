"""Stream events, emitted by the shared message builder as a stream is decoded."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.model.errors import ProviderError
from conformance.model.messages import AssistantMessage


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StartEvent(_Event):
    type: Literal["start"] = "start"


class TextDeltaEvent(_Event):
    type: Literal["text_delta"] = "text_delta"
    index: int
    delta: str


class ThinkingDeltaEvent(_Event):
    type: Literal["thinking_delta"] = "thinking_delta"
    index: int
    delta: str


class ToolCallStartEvent(_Event):
    type: Literal["toolcall_start"] = "toolcall_start"
    index: int
    id: str | None
    name: str | None


class ToolCallDeltaEvent(_Event):
    type: Literal["toolcall_delta"] = "toolcall_delta"
    index: int
    delta: str


class ToolCallEndEvent(_Event):
    type: Literal["toolcall_end"] = "toolcall_end"
    index: int


class DoneEvent(_Event):
    type: Literal["done"] = "done"
    message: AssistantMessage


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    error: ProviderError
    partial: AssistantMessage | None = None


StreamEvent = Annotated[
    StartEvent
    | TextDeltaEvent
    | ThinkingDeltaEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent,
    Field(discriminator="type"),
]
