"""What the runtime is asked to send: a conversation, tools and options.

This is the CONVERSATION.json shape of `conformance encode` (docs/normalized-form.md).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from conformance.model.blocks import JSONObject
from conformance.model.messages import Message


class ToolSpec(BaseModel):
    """A tool offered to the model: its name, description and JSON-schema `parameters`."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    parameters: JSONObject = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Options(BaseModel):
    """Request options. Unknown keys are kept and passed to the codec untouched."""

    model_config = ConfigDict(extra="allow")

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: list[str] | None = None
    stream: bool = False
    tool_choice: str | dict[str, Any] | None = None
    thinking_budget: int | None = None
    """Ask for reasoning with this token budget (providers that take a budget)."""
    drop_unsupported: bool = False
    """Send the request without the sampling options the model rejects (`temperature`, `top_p`,
    `stop`), each removal reported as a warning, instead of refusing it with an
    `UnsupportedFeatureError`. Never sent to the provider; streaming and tools are refused either way."""


class Conversation(BaseModel):
    """What the runtime is asked to send: messages, tools, options and the model (None: the profile default)."""

    model_config = ConfigDict(extra="forbid")

    messages: list[Message]
    tools: list[ToolSpec] = Field(default_factory=list)
    options: Options = Field(default_factory=Options)
    model: str | None = None


__all__ = ["Conversation", "Options", "ToolSpec"]
