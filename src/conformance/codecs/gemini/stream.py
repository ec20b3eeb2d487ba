"""Gemini streaming: frames from `GeminiFramer`, read by the same `ResponseReader` as `decode`.

There is no terminator: the stream ends when the connection closes. It finished if the last
content chunk carried a `finishReason` (or the prompt was blocked); otherwise it was cut off.
"""

from __future__ import annotations

from conformance.capabilities import ProviderProfile
from conformance.codecs.gemini.framing import Frame, GeminiFramer
from conformance.codecs.gemini.reader import ResponseReader
from conformance.model import AssistantMessage, DoneEvent, ErrorEvent, ProviderError, StartEvent, StreamEvent


class GeminiStream:
    """One per response; never reused."""

    def __init__(self, profile: ProviderProfile) -> None:
        self._reader = ResponseReader(profile)
        self._framer = GeminiFramer()
        self._started = False
        self._emitted = 0
        self._error_sent = False
        self._done_sent = False

    @property
    def unsupported_parts(self) -> list[str]:
        return self._reader.unsupported_parts

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        return self._handle(self._framer.feed(chunk))

    def finish(self) -> AssistantMessage:
        self._handle(self._framer.finish())
        if not self._reader.finished:
            self._reader.fail(ProviderError(kind="stream_interrupted", message="stream ended without a finishReason"))
        return self._reader.message()

    def _handle(self, frames: list[Frame]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for frame in frames:
            if not self._started:
                self._started = True
                out.append(StartEvent())
            if frame.error is not None:
                kind = "stream_interrupted" if frame.final else "server"
                self._reader.fail(ProviderError(kind=kind, message=f"{frame.where}: {frame.error}"))
            else:
                self._reader.response(frame.value)
            out.extend(self._new_builder_events())
            builder = self._reader.builder
            if builder.error is not None and not self._error_sent:
                self._error_sent = True
                out.append(ErrorEvent(error=builder.error, partial=self._reader.message()))
            elif self._reader.finished and builder.error is None and not self._done_sent:
                self._done_sent = True
                out.append(DoneEvent(message=self._reader.message()))
            out.extend(self._new_builder_events())
        return out

    def _new_builder_events(self) -> list[StreamEvent]:
        events = self._reader.builder.events[self._emitted :]
        self._emitted = len(self._reader.builder.events)
        return events
