"""Ollama NDJSON streaming over the shared `NDJSONDecoder`.

The stream ends with a `done: true` record; without one it was cut off. An `{"error": …}` line
(HTTP status stays 200) is a typed error with the partial message kept. A line that is not JSON
is corruption when a newline completed it, and a cut when it is the unterminated last line.
"""

from __future__ import annotations

from conformance.capabilities import ProviderProfile
from conformance.codecs.ollama.reader import RecordReader
from conformance.model import AssistantMessage, DoneEvent, ErrorEvent, ProviderError, StartEvent, StreamEvent
from conformance.wire import NDJSONDecoder, NDJSONRecord


class OllamaStream:
    """One per response; never reused."""

    def __init__(self, profile: ProviderProfile) -> None:
        self._reader = RecordReader(profile)
        self._decoder = NDJSONDecoder()
        self._started = False
        self._emitted = 0
        self._error_sent = False
        self._done_sent = False

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        return self._handle(self._decoder.feed(chunk), final=False)

    def finish(self) -> AssistantMessage:
        self._handle(self._decoder.finish(), final=True)
        if not self._reader.done:
            self._reader.fail(ProviderError(kind="stream_interrupted", message="stream ended before done: true"))
        return self._reader.message()

    def _handle(self, records: list[NDJSONRecord], *, final: bool) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for rec in records:
            if not self._started:
                self._started = True
                out.append(StartEvent())
            where = f"line {rec.line}"
            if rec.error is not None:
                cut = final and not self._reader.done
                self._reader.fail(
                    ProviderError(
                        kind="stream_interrupted" if cut else "server",
                        message=f"{where}: {rec.error}: {rec.raw[:120]!r}",
                    )
                )
            else:
                self._reader.record(rec.value, where=where)
            out.extend(self._new_builder_events())
            builder = self._reader.builder
            if builder.error is not None and not self._error_sent:
                self._error_sent = True
                out.append(ErrorEvent(error=builder.error, partial=self._reader.message()))
            elif self._reader.done and builder.error is None and not self._done_sent:
                self._done_sent = True
                out.append(DoneEvent(message=self._reader.message()))
            out.extend(self._new_builder_events())
        return out

    def _new_builder_events(self) -> list[StreamEvent]:
        events = self._reader.builder.events[self._emitted :]
        self._emitted = len(self._reader.builder.events)
        return events
