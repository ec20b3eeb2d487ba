"""Content blocks, discriminated on `type` (see docs/normalized-form.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from conformance.jsonvalue import MAX_DEPTH, depth


def _bounded(value: dict[str, Any]) -> dict[str, Any]:
    if depth(value) > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels (it could not be written back as JSON)")
    return value


JSONObject = Annotated[dict[str, Any], AfterValidator(_bounded)]
"""A JSON object from outside (tool arguments, a tool schema), at most `MAX_DEPTH` deep."""


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class TextBlock(_Block):
    """Visible text."""

    type: Literal["text"] = "text"
    text: str
    signature: str | None = None
    """Opaque, byte-exact (Gemini `thoughtSignature` on a text part)."""


class ThinkingBlock(_Block):
    """Reasoning text the model showed, with the provider's signature when it gave one."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None
    """Opaque, byte-exact; must be sent back unmodified to the provider that made it."""


class RedactedThinkingBlock(_Block):
    """Reasoning the provider withheld: opaque `data`, sent back unmodified."""

    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


class ToolCallBlock(_Block):
    """A call the model asks for; `arguments` is always a JSON object."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: JSONObject = Field(default_factory=dict)
    raw_arguments: str | None = None
    """The wire argument text, only when it was not a JSON object."""
    signature: str | None = None


class ImageBlock(_Block):
    """An image, inline (`media_type` + base64 `data`) or by `url`."""

    type: Literal["image"] = "image"
    media_type: str | None = None
    data: str | None = None
    url: str | None = None


class ServerToolBlock(_Block):
    """Work the provider's own tools did (a web search, code it ran, an MCP call), or a request for
    the user's approval of such work: kept as data, in the order received, and sent back unchanged
    to the dialect that made it (other dialects cannot replay it). In a user turn: the caller's
    answer to such a request."""

    type: Literal["server_tool"] = "server_tool"
    dialect: str
    """The wire dialect whose item or block this is (`openai_responses`, `anthropic`)."""
    name: str
    """The item's or block's wire `type` (`web_search_call`, `mcp_call`, `server_tool_use`)."""
    id: str | None = None
    """The wire id (`ws_…`, `srvtoolu_…`), or the id of the call a result block answers."""
    status: str | None = None
    """The wire `status` (`completed`, `in_progress`, `failed`, …) when the item has one."""
    data: JSONObject
    """The item or block as received, every field and value kept (key order too)."""


AssistantBlock = Annotated[
    ThinkingBlock | RedactedThinkingBlock | TextBlock | ToolCallBlock | ServerToolBlock | ImageBlock,
    Field(discriminator="type"),
]
UserBlock = Annotated[TextBlock | ImageBlock, Field(discriminator="type")]
"""What a tool result holds."""
UserMessageBlock = Annotated[TextBlock | ImageBlock | ServerToolBlock, Field(discriminator="type")]
"""What a user turn holds: a `server_tool` block there is the caller's answer to provider-side work
(a Responses `mcp_approval_response`), in the dialect's wire shape."""
