"""What the accumulators of SSE dialects share: frames in, the message out, a cut stream reported.

A dialect subclasses `SSEStream` and handles one frame in `_frame`; `UNFINISHED` says what the
stream lacked when it ends without its terminal event (reported as `stream_interrupted`, with the
message received so far kept as the partial).
"""

from __future__ import annotations

from conformance.codecs.builder import MessageBuilder
from conformance.exceptions import WireFormatError
from conformance.model import AssistantMessage, ProviderError, StreamEvent
from conformance.wire import SSEDecoder


class SSEStream:
    """Per-stream state; one instance per response, never reused."""

    UNFINISHED = "stream ended before its terminal event"

    def __init__(self, builder: MessageBuilder) -> None:
        self._builder = builder
        self._sse = SSEDecoder()
        self._frames = 0
        self._started = False
        self._finished = False
        self._failed = False

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        frame = self._frame
        for event, data, _, _ in self._sse.frames(chunk):
            frame(event, data, False)
        return self._builder.new_events()

    def finish(self) -> AssistantMessage:
        try:
            frames = self._sse.finish_frames()
        except WireFormatError as exc:
            frames = []
            self._interrupt(f"stream ends mid-character ({exc})")
        for event, data, _, _ in frames:
            self._frame(event, data, True)
        self._flush()
        if not self._finished and not self._failed:
            self._interrupt(self.UNFINISHED)
        return self._builder.build()

    def _frame(self, event: str, raw: str, final: bool) -> None:
        """One SSE event (`final`: the last one of the stream, possibly cut short)."""
        raise NotImplementedError

    def _flush(self) -> None:
        """Whatever the dialect still holds back, before the stream's end is judged."""

    def _interrupt(self, message: str) -> None:
        if not self._failed:
            self._failed = True
            self._builder.error = ProviderError(kind="stream_interrupted", message=message)
