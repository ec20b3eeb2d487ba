"""The one message accumulator every dialect shares, streaming and non-streaming alike.

A dialect translates its frames into builder calls keyed by whatever identifies a part on its
wire (Anthropic: block index; OpenAI: the tool-call id; Gemini: part position). The builder keeps
parts in order of first appearance, emits `StreamEvent`s, parses tool arguments once at the end,
moves thinking before text and tool calls (a message with server-tool blocks keeps the order
received: the provider wants its items back that way), drops empty text, and gives id-less tool calls the
contract's deterministic `call_<n>` ids. One builder per response; never reused.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Literal

from conformance.codecs.arguments import coerce_arguments, parse_arguments
from conformance.model import (
    AssistantBlock,
    AssistantMessage,
    ProviderError,
    RedactedThinkingBlock,
    ServerToolBlock,
    Source,
    StopReason,
    StreamEvent,
    TextBlock,
    TextDeltaEvent,
    ThinkingBlock,
    ThinkingDeltaEvent,
    ToolCallBlock,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    Usage,
)

PartKind = Literal["text", "thinking", "redacted_thinking", "tool_call", "server_tool"]


_DELTA_EVENTS: dict[PartKind, type[TextDeltaEvent | ThinkingDeltaEvent | ToolCallDeltaEvent]] = {
    "text": TextDeltaEvent,
    "thinking": ThinkingDeltaEvent,
    "tool_call": ToolCallDeltaEvent,
}


@dataclass(slots=True)
class _Part:
    kind: PartKind
    position: int
    chunks: list[str] = field(default_factory=list)
    signature: str | None = None
    tool_id: str | None = None
    name: str | None = None
    arguments: Any = None
    """Arguments given whole (object providers); wins over streamed chunks."""
    closed: bool = False
    server: ServerToolBlock | None = None
    """A server-tool part's block, whole (it takes no deltas)."""
    delta_event: type[TextDeltaEvent | ThinkingDeltaEvent | ToolCallDeltaEvent] | None = None
    """The event a delta of this part emits (None: the part takes no deltas)."""


class MessageBuilder:
    """Accumulates one response's parts into an `AssistantMessage`, emitting stream events on the way.

    A dialect calls it with its own part keys; one builder per response, never reused."""

    def __init__(self, *, provider: str | None = None, model: str | None = None, events: bool = True) -> None:
        self.emits = events
        """False: no stream events are built (a consumer that wants only the final message)."""
        self.provider = provider
        self.model = model
        self.usage: Usage | None = None
        self.sources: list[Source] | None = None
        self.stop_reason: StopReason | None = None
        self.raw_stop_reason: str | None = None
        self.error: ProviderError | None = None
        self.events: list[StreamEvent] = []
        self._parts: dict[Hashable, _Part] = {}

    # parts -----------------------------------------------------------------------------------

    def has(self, key: Hashable) -> bool:
        """Whether a part was opened at `key`."""
        return key in self._parts

    def kind_of(self, key: Hashable) -> PartKind | None:
        """The kind of the part at `key`, or None when there is none."""
        part = self._parts.get(key)
        return None if part is None else part.kind

    def _part(self, key: Hashable, kind: PartKind) -> _Part:
        part = self._parts.get(key)
        if part is None:
            part = _Part(kind, len(self._parts), delta_event=_DELTA_EVENTS.get(kind))
            self._parts[key] = part
        return part

    def append(self, key: Hashable, kind: PartKind, delta: str) -> bool:
        """Extend the existing `kind` part at `key` with a delta (the hot path of every stream).

        False, with nothing changed, when there is no such part: the caller then takes its general
        path, which opens parts and reports mismatches."""
        part = self._parts.get(key)
        if part is None or part.kind != kind or part.delta_event is None:
            return False
        if delta:
            part.chunks.append(delta)
            if self.emits:
                self.events.append(part.delta_event(part.position, delta))
        return True

    def text(self, key: Hashable, delta: str, *, signature: str | None = None) -> None:
        """Open or extend the text part at `key`; a signature given replaces the part's."""
        part = self._part(key, "text")
        if delta:
            part.chunks.append(delta)
            if self.emits:
                self.events.append(TextDeltaEvent(part.position, delta))
        if signature:
            part.signature = signature

    def complete(self, key: Hashable, kind: PartKind, whole: str) -> None:
        """The whole text of the `kind` part at `key`, as a provider restates it at the part's end:
        what the deltas left out of it is appended as one more delta; deltas that are not a prefix
        of it give way to it (without an event: those sent cannot be taken back). Nothing happens
        when there is no such part."""
        part = self._parts.get(key)
        if part is None or part.kind != kind or part.delta_event is None:
            return
        so_far = "".join(part.chunks)
        if so_far == whole:
            return
        if whole.startswith(so_far):
            self.append(key, kind, whole[len(so_far) :])
        else:
            part.chunks = [whole]

    def thinking(self, key: Hashable, delta: str, *, signature: str | None = None) -> None:
        """Open or extend the thinking part at `key`; a signature given replaces the part's."""
        part = self._part(key, "thinking")
        if delta:
            part.chunks.append(delta)
            if self.emits:
                self.events.append(ThinkingDeltaEvent(part.position, delta))
        if signature:
            part.signature = signature

    def signature(self, key: Hashable, signature: str, *, kind: PartKind = "thinking") -> None:
        """Append a signature fragment (Anthropic sends it whole in one `signature_delta`)."""
        part = self._part(key, kind)
        part.signature = (part.signature or "") + signature

    def redacted_thinking(self, key: Hashable, data: str) -> None:
        """Open or extend the redacted-thinking part at `key` with opaque data."""
        part = self._part(key, "redacted_thinking")
        part.chunks.append(data)

    def server_tool(self, key: Hashable, block: ServerToolBlock) -> None:
        """Open the server-tool part at `key`, or replace its block with a later, fuller one."""
        part = self._part(key, "server_tool")
        part.server = block

    def tool_call(
        self,
        key: Hashable,
        *,
        id: str | None = None,
        name: str | None = None,
        arguments_delta: str | None = None,
        arguments: Any = None,
        signature: str | None = None,
    ) -> None:
        """Start or extend a tool call. `id`/`name` are set once; later repeats are ignored."""
        new = key not in self._parts
        part = self._part(key, "tool_call")
        if part.tool_id is None and id:
            part.tool_id = id
        if part.name is None and name:
            part.name = name
        if new and self.emits:
            self.events.append(ToolCallStartEvent(index=part.position, id=part.tool_id, name=part.name))
        if arguments_delta:
            part.chunks.append(arguments_delta)
            if self.emits:
                self.events.append(ToolCallDeltaEvent(part.position, arguments_delta))
        if arguments is not None:
            part.arguments = arguments
        if signature:
            part.signature = signature

    def close(self, key: Hashable) -> None:
        """Mark the tool call at `key` complete (once; anything else at `key` is left alone)."""
        part = self._parts.get(key)
        if part is not None and part.kind == "tool_call" and not part.closed:
            part.closed = True
            if self.emits:
                self.events.append(ToolCallEndEvent(index=part.position))

    # message-level ---------------------------------------------------------------------------

    def emit(self, event: Callable[[], StreamEvent]) -> None:
        """Add a message-level event (start, done, error), built only when events are wanted."""
        if self.emits:
            self.events.append(event())

    def new_events(self) -> list[StreamEvent]:
        """The events added since the last call (each handed out once)."""
        events = self.events
        self.events = []
        return events

    def set_stop(self, raw: str | None, normalized: StopReason | None) -> None:
        """Record the provider's stop reason and its normalized value."""
        self.raw_stop_reason = raw
        self.stop_reason = normalized

    def has_tool_calls(self) -> bool:
        """Whether any tool call was opened."""
        return any(p.kind == "tool_call" for p in self._parts.values())

    def build(self) -> AssistantMessage:
        """The message: open tool calls closed, thinking first (in a message with server-tool blocks,
        every block where it was received), empty text dropped, id-less calls `call_<n>`."""
        for key in list(self._parts):
            self.close(key)
        received: list[AssistantBlock] = []
        thinking: list[AssistantBlock] = []
        rest: list[AssistantBlock] = []
        server_tools = False
        tool_ordinal = 0
        for part in self._parts.values():
            text = "".join(part.chunks)
            block: AssistantBlock | None = None
            if part.kind == "thinking":
                if text or part.signature:
                    block = ThinkingBlock(thinking=text, signature=part.signature)
            elif part.kind == "redacted_thinking":
                block = RedactedThinkingBlock(data=text)
            elif part.kind == "text":
                if text or part.signature:
                    block = TextBlock(text=text, signature=part.signature)
            elif part.kind == "server_tool":
                block = part.server
                server_tools = True
            else:
                if part.arguments is not None:
                    args, raw = coerce_arguments(part.arguments)
                else:
                    args, raw = parse_arguments(text if part.chunks else None)
                block = ToolCallBlock(
                    id=part.tool_id or f"call_{tool_ordinal}",
                    name=part.name or "",
                    arguments=args,
                    raw_arguments=raw,
                    signature=part.signature,
                )
                tool_ordinal += 1
            if block is not None:
                received.append(block)
                (thinking if part.kind in ("thinking", "redacted_thinking") else rest).append(block)
        return AssistantMessage(
            content=received if server_tools else thinking + rest,
            stop_reason=self.stop_reason,
            raw_stop_reason=self.raw_stop_reason,
            usage=self.usage,
            provider=self.provider,
            model=self.model,
            error=self.error,
            sources=self.sources,
        )
