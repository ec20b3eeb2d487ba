"""The Messages event stream → `StreamEvent`s and one `AssistantMessage`.

Flow: `message_start` → per block `content_block_start` / `content_block_delta`* /
`content_block_stop` (blocks keyed by `index`) → `message_delta` (stop reason, cumulative usage)
→ `message_stop`. `ping` and unknown event types are ignored.

Endings: `message_stop` emits `done`. `event: error` emits `error`: the partial message gets
`stop_reason: "error"` and the typed error. A stream without `message_stop` (connection cut,
possibly inside an event or a UTF-8 character) ends with a `stream_interrupted` error, the
partial message and no stop reason. Events arrive from `feed`; `finish` returns the message.
Frames come from the shared SSE decoder, so the result is the same for any chunking of the bytes.
"""

from __future__ import annotations

from typing import Any

import orjson

from conformance.capabilities import ProviderProfile
from conformance.codecs.anthropic.content import add_block, as_object, merge_usage, set_stop, usage_of
from conformance.codecs.anthropic.errors import error_from_payload
from conformance.codecs.anthropic.vocabulary import END_EVENT
from conformance.codecs.builder import MessageBuilder, PartKind
from conformance.exceptions import WireFormatError
from conformance.model import (
    AssistantMessage,
    DoneEvent,
    ErrorEvent,
    ProviderError,
    StartEvent,
    StreamEvent,
)
from conformance.wire import SSEDecoder, SSEEvent

# delta type → the part kind it extends
_DELTA_KINDS: dict[str, PartKind] = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "thinking",
    "input_json_delta": "tool_call",
}


class AnthropicStream:
    """Per-stream state; one instance per response, never reused."""

    def __init__(self, profile: ProviderProfile) -> None:
        self._builder = MessageBuilder(provider=profile.name)
        self._sse = SSEDecoder()
        self._emitted = 0
        self._frames = 0
        self._usage: dict[str, Any] | None = None
        self._skipped: set[int] = set()
        """Indices of blocks without a canonical form; their deltas are skipped too."""
        self._placeholders: dict[int, dict[str, Any]] = {}
        """`tool_use.input` of `content_block_start`, used only if no `input_json_delta` follows."""
        self._streamed: set[int] = set()
        self._ended = False
        self._truncated = False
        self._error: ProviderError | None = None

    # public ----------------------------------------------------------------------------------

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        for frame in self._sse.feed(chunk):
            self._frame(frame, final=False)
        return self._new_events()

    def finish(self) -> AssistantMessage:
        try:
            frames = self._sse.finish()
        except WireFormatError as exc:  # the bytes stop inside a UTF-8 sequence: a cut stream
            frames = []
            self._interrupt(f"stream ends mid-character ({exc})")
        for frame in frames:
            self._frame(frame, final=True)
        if not self._ended:
            cut = " (the last event is incomplete)" if self._truncated else ""
            self._interrupt(f"stream ended without `{END_EVENT}`{cut}")
        return self._message()

    # frames ----------------------------------------------------------------------------------

    def _frame(self, frame: SSEEvent, *, final: bool) -> None:
        self._frames += 1
        if self._ended:
            return
        where = f"stream event {self._frames} ({frame.event})"
        try:
            data = orjson.loads(frame.data)
        except orjson.JSONDecodeError as exc:
            if final:  # the last frame of a cut stream; finish() reports the interruption
                self._truncated = True
                return
            raise WireFormatError(f"data is not valid JSON ({exc})", where=where) from None
        if frame.event == "error" or (isinstance(data, dict) and data.get("type") == "error"):
            self._fail(error_from_payload(data, status=None))
            return
        payload = as_object(data, where)
        kind = payload.get("type")
        handler = _HANDLERS.get(kind if isinstance(kind, str) else frame.event)
        if handler is not None:
            handler(self, payload, where)

    def _message_start(self, payload: dict[str, Any], where: str) -> None:
        message = as_object(payload.get("message", {}), f"{where}: message")
        model = message.get("model")
        if isinstance(model, str):
            self._builder.model = model
        self._builder.events.append(StartEvent())
        usage = message.get("usage")
        if isinstance(usage, dict):
            self._set_usage(usage)

    def _block_start(self, payload: dict[str, Any], where: str) -> None:
        index = _index(payload, where)
        block = as_object(payload.get("content_block"), f"{where}: content_block")
        if not add_block(self._builder, index, block, whole=False):
            self._skipped.add(index)
        elif block.get("type") == "tool_use" and isinstance(block.get("input"), dict) and block["input"]:
            self._placeholders[index] = block["input"]

    def _block_delta(self, payload: dict[str, Any], where: str) -> None:
        index = payload.get("index")
        delta = payload.get("delta")
        if type(index) is int and isinstance(delta, dict) and index not in self._skipped:
            # The common deltas, checked against their block's kind without building error text.
            kind = delta.get("type")
            if kind == "text_delta" and self._builder.kind_of(index) == "text":
                text = delta.get("text")
                if isinstance(text, str):
                    self._builder.text(index, text)
                    return
            elif kind == "input_json_delta" and self._builder.kind_of(index) == "tool_call":
                fragment = delta.get("partial_json")
                if isinstance(fragment, str):
                    self._streamed.add(index)
                    self._builder.tool_call(index, arguments_delta=fragment)
                    return
        index = _index(payload, where)
        if index in self._skipped:
            return
        delta = as_object(payload.get("delta"), f"{where}: delta")
        kind = _DELTA_KINDS.get(str(delta.get("type")))
        if kind is None:  # citations_delta and newer delta types carry nothing canonical
            return
        known = self._builder.kind_of(index)
        if known is not None and known != kind:
            raise WireFormatError(f"{delta.get('type')} for a {known} block", where=f"{where}: delta")
        b = self._builder
        if delta["type"] == "text_delta":
            b.text(index, _text(delta, "text", where))
        elif delta["type"] == "thinking_delta":
            b.thinking(index, _text(delta, "thinking", where))
        elif delta["type"] == "signature_delta":
            b.signature(index, _text(delta, "signature", where))
        else:
            self._streamed.add(index)
            b.tool_call(index, arguments_delta=_text(delta, "partial_json", where))

    def _block_stop(self, payload: dict[str, Any], where: str) -> None:
        index = _index(payload, where)
        self._settle_placeholder(index)
        self._builder.close(index)

    def _message_delta(self, payload: dict[str, Any], where: str) -> None:
        delta = payload.get("delta")
        if isinstance(delta, dict) and delta.get("stop_reason") is not None:
            set_stop(self._builder, delta.get("stop_reason"))
        usage = payload.get("usage")
        if isinstance(usage, dict):
            self._set_usage(usage)

    def _message_stop(self, payload: dict[str, Any], where: str) -> None:
        self._ended = True
        self._builder.events.append(DoneEvent(message=self._message()))

    # state -----------------------------------------------------------------------------------

    def _set_usage(self, raw: dict[str, Any]) -> None:
        self._usage = merge_usage(self._usage, raw)
        self._builder.usage = usage_of(self._usage)

    def _settle_placeholder(self, index: int) -> None:
        placeholder = self._placeholders.pop(index, None)
        if placeholder is not None and index not in self._streamed:
            self._builder.tool_call(index, arguments=placeholder)

    def _fail(self, error: ProviderError) -> None:
        self._ended = True
        self._error = error
        self._builder.set_stop(None, "error")
        self._builder.events.append(ErrorEvent(error=error, partial=self._message()))

    def _interrupt(self, message: str) -> None:
        if self._ended:
            return
        self._ended = True
        self._error = ProviderError(kind="stream_interrupted", message=message)
        self._builder.set_stop(None, None)

    def _message(self) -> AssistantMessage:
        for index in list(self._placeholders):
            self._settle_placeholder(index)
        self._builder.error = self._error
        return self._builder.build()

    def _new_events(self) -> list[StreamEvent]:
        events = self._builder.events[self._emitted :]
        self._emitted = len(self._builder.events)
        return events


def _index(payload: dict[str, Any], where: str) -> int:
    index = payload.get("index")
    if not isinstance(index, int) or isinstance(index, bool):
        raise WireFormatError("missing integer `index`", where=where)
    return index


def _text(delta: dict[str, Any], key: str, where: str) -> str:
    value = delta.get(key, "")
    if not isinstance(value, str):
        raise WireFormatError(f"`{key}` is not a string", where=f"{where}: delta")
    return value


_HANDLERS = {
    "message_start": AnthropicStream._message_start,
    "content_block_start": AnthropicStream._block_start,
    "content_block_delta": AnthropicStream._block_delta,
    "content_block_stop": AnthropicStream._block_stop,
    "message_delta": AnthropicStream._message_delta,
    "message_stop": AnthropicStream._message_stop,
}
