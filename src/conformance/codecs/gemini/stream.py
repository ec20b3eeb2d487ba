"""Gemini streaming: frames from `GeminiFramer`, read by the same `ResponseReader` as `decode`.

There is no terminator: the stream ends when the connection closes. It finished if the last
content chunk carried a `finishReason` (or the prompt was blocked); otherwise it was cut off.
"""

from __future__ import annotations

from conformance.capabilities import ProviderProfile
from conformance.codecs.gemini.framing import Frame, GeminiFramer
from conformance.codecs.gemini.reader import ResponseReader
from conformance.codecs.lifecycle import Lifecycle
from conformance.model import AssistantMessage, ProviderError, StreamEvent


class GeminiStream:
    """One per response; never reused."""

    def __init__(self, profile: ProviderProfile, *, events: bool = True) -> None:
        self._reader = ResponseReader(profile, events=events)
        self._framer = GeminiFramer()
        self._life = Lifecycle(self._reader.builder)

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
        for frame in frames:
            self._life.start()
            if frame.error is not None:
                kind = "stream_interrupted" if frame.final else "server"
                self._reader.fail(ProviderError(kind=kind, message=f"{frame.where}: {frame.error}"))
            else:
                self._reader.response(frame.value)
            self._life.settle(self._reader.finished, self._reader.message)
        return self._reader.builder.new_events()
