"""The Messages event stream → `StreamEvent`s and one `AssistantMessage`.

Flow: `message_start` → per block `content_block_start` / `content_block_delta`* /
`content_block_stop` (blocks keyed by `index`) → `message_delta` (stop reason, cumulative usage)
→ `message_stop`. `ping` and unknown event types are ignored. A server-side block
(`server_tool_use`, `web_search_tool_result`, …) starts whole; its deltas (the input JSON of a
`server_tool_use`, a compaction's text) complete it at `content_block_stop`.

Endings: `message_stop` emits `done`. `event: error` emits `error`: the partial message gets
`stop_reason: "error"` and the typed error. A stream without `message_stop` (connection cut,
possibly inside an event or a UTF-8 character) ends with a `stream_interrupted` error, the
partial message and no stop reason. Events arrive from `feed`; `finish` returns the message.
Frames come from the shared SSE decoder, so the result is the same for any chunking of the bytes.
"""

from __future__ import annotations

from typing import Any

import orjson

from conformance import jsonvalue
from conformance.capabilities import ProviderProfile
from conformance.codecs.anthropic.content import (
    add_block,
    as_object,
    merge_usage,
    server_block,
    set_stop,
    usage_of,
)
from conformance.codecs.anthropic.errors import error_from_payload
from conformance.codecs.anthropic.vocabulary import END_EVENT, SERVER_DELTAS, is_server_block
from conformance.codecs.builder import MessageBuilder, PartKind
from conformance.exceptions import WireFormatError
from conformance.jsonvalue import MAX_DEPTH, bounded
from conformance.model import (
    AssistantMessage,
    DoneEvent,
    ErrorEvent,
    ProviderError,
    StartEvent,
    StreamEvent,
)
from conformance.wire import SSEDecoder

# delta type → the part kind it extends
_DELTA_KINDS: dict[str, PartKind] = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "thinking",
    "input_json_delta": "tool_call",
}


# delta type → (its text field, the part kind it extends), for the deltas taken on the hot path
_FAST_DELTAS: dict[str, tuple[str, PartKind]] = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("thinking", "thinking"),
    "input_json_delta": ("partial_json", "tool_call"),
}


class AnthropicStream:
    """Per-stream state; one instance per response, never reused."""

    def __init__(self, profile: ProviderProfile, *, events: bool = True) -> None:
        self._builder = MessageBuilder(provider=profile.name, events=events)
        self._sse = SSEDecoder()
        self._frames = 0
        self._usage: dict[str, Any] | None = None
        self._skipped: set[int] = set()
        """Indices of blocks without a canonical form; their deltas are skipped too."""
        self._placeholders: dict[int, dict[str, Any]] = {}
        """`tool_use.input` of `content_block_start`, dropped by the block's first `input_json_delta`."""
        self._server: dict[int, tuple[dict[str, Any], dict[str, list[str]]]] = {}
        """Open server-side blocks: the block of `content_block_start`, and the text of its deltas by field."""
        self._ended = False
        self._truncated = False
        self._error: ProviderError | None = None

    # public ----------------------------------------------------------------------------------

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        frame = self._frame
        for event, data, _, _ in self._sse.frames(chunk):
            frame(event, data, False)
        return self._builder.new_events()

    def finish(self) -> AssistantMessage:
        try:
            frames = self._sse.finish_frames()
        except WireFormatError as exc:  # the bytes stop inside a UTF-8 sequence: a cut stream
            frames = []
            self._interrupt(f"stream ends mid-character ({exc})")
        for event, data, _, _ in frames:
            self._frame(event, data, True)
        if not self._ended:
            cut = " (the last event is incomplete)" if self._truncated else ""
            self._interrupt(f"stream ended without `{END_EVENT}`{cut}")
        return self._message()

    # frames ----------------------------------------------------------------------------------

    def _frame(self, event: str, raw: str, final: bool) -> None:
        self._frames += 1
        if self._ended:
            return
        try:
            data = orjson.loads(raw)  # jsonvalue.loads inlined: this runs once per event
            if len(raw) > MAX_DEPTH:
                data = bounded(raw, data)
        except orjson.JSONDecodeError as exc:
            if final:  # the last frame of a cut stream; finish() reports the interruption
                self._truncated = True
                return
            raise WireFormatError(f"data is not valid JSON ({exc})", where=self._where(event)) from None
        if data.__class__ is dict and data.get("type") == "content_block_delta" and event != "error":
            # The hot path, inline: a text, thinking or tool-input delta extending its open block.
            index = data.get("index")
            delta: Any = data.get("delta")
            kind = delta.get("type") if delta.__class__ is dict else None
            fast = _FAST_DELTAS.get(kind) if kind.__class__ is str else None  # a list or object is not a type
            if fast is not None and index.__class__ is int:
                value = delta.get(fast[0])
                if value.__class__ is str and self._builder.append(index, fast[1], value):
                    if self._placeholders and fast[1] == "tool_call":
                        self._placeholders.pop(index, None)
                    return
        where = self._where(event)
        if event == "error" or (isinstance(data, dict) and data.get("type") == "error"):
            self._fail(error_from_payload(data, status=None))
            return
        payload = as_object(data, where)
        kind = payload.get("type")
        handler = _HANDLERS.get(kind if isinstance(kind, str) else event)
        if handler is not None:
            handler(self, payload, where)

    def _message_start(self, payload: dict[str, Any], where: str) -> None:
        message = as_object(payload.get("message", {}), f"{where}: message")
        model = message.get("model")
        if isinstance(model, str):
            self._builder.model = model
        self._builder.emit(StartEvent)
        usage = message.get("usage")
        if isinstance(usage, dict):
            self._set_usage(usage)

    def _block_start(self, payload: dict[str, Any], where: str) -> None:
        index = _index(payload, where)
        block = as_object(payload.get("content_block"), f"{where}: content_block")
        if not add_block(self._builder, index, block, whole=False):
            self._skipped.add(index)
        elif is_server_block(block.get("type")):
            self._server[index] = (block, {})
        elif block.get("type") == "tool_use" and isinstance(block.get("input"), dict) and block["input"]:
            self._placeholders[index] = block["input"]

    def _where(self, event: str) -> str:
        return f"stream event {self._frames} ({event})"

    def _block_delta(self, payload: dict[str, Any], where: str) -> None:
        index = _index(payload, where)
        if index in self._skipped:
            return
        delta = as_object(payload.get("delta"), f"{where}: delta")
        if index in self._server:
            self._server_delta(index, delta, where)
            return
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
            self._placeholders.pop(index, None)
            b.tool_call(index, arguments_delta=_text(delta, "partial_json", where))

    def _server_delta(self, index: int, delta: dict[str, Any], where: str) -> None:
        spec = SERVER_DELTAS.get(str(delta.get("type")))
        if spec is not None:  # other deltas (citations) carry nothing the block keeps
            self._server[index][1].setdefault(spec[1], []).append(_text(delta, spec[0], where))

    def _block_stop(self, payload: dict[str, Any], where: str) -> None:
        index = _index(payload, where)
        self._settle_server(index)
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
        self._builder.emit(lambda: DoneEvent(message=self._message()))

    # state -----------------------------------------------------------------------------------

    def _set_usage(self, raw: dict[str, Any]) -> None:
        self._usage = merge_usage(self._usage, raw)
        self._builder.usage = usage_of(self._usage)

    def _settle_server(self, index: int) -> None:
        """A server-side block completed by its deltas: JSON input parsed (a cut, unparsable input
        leaves the start's), text appended."""
        opened = self._server.pop(index, None)
        if opened is None or not opened[1]:
            return
        block, fields = dict(opened[0]), opened[1]
        for name, chunks in fields.items():
            text = "".join(chunks)
            if name == "input":
                try:
                    value = jsonvalue.loads(text)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(value, dict):
                    block[name] = value
            else:
                previous = block.get(name)
                block[name] = (previous if isinstance(previous, str) else "") + text
        server = server_block(block)
        if server is not None:
            self._builder.server_tool(index, server)

    def _settle_placeholder(self, index: int) -> None:
        placeholder = self._placeholders.pop(index, None)
        if placeholder is not None:
            self._builder.tool_call(index, arguments=placeholder)

    def _fail(self, error: ProviderError) -> None:
        self._ended = True
        self._error = error
        self._builder.set_stop(None, "error")
        self._builder.emit(lambda: ErrorEvent(error=error, partial=self._message()))

    def _interrupt(self, message: str) -> None:
        if self._ended:
            return
        self._ended = True
        self._error = ProviderError(kind="stream_interrupted", message=message)
        self._builder.set_stop(None, None)

    def _message(self) -> AssistantMessage:
        for index in list(self._server):
            self._settle_server(index)
        for index in list(self._placeholders):
            self._settle_placeholder(index)
        self._builder.error = self._error
        return self._builder.build()


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
