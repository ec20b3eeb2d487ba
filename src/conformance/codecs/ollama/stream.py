"""Ollama NDJSON streaming over the shared `NDJSONDecoder`.

The stream ends with a `done: true` record; without one it was cut off. An `{"error": …}` line
(HTTP status stays 200) is a typed error with the partial message kept. A line that is not JSON
is corruption when a newline completed it, and a cut when it is the unterminated last line.
"""

from __future__ import annotations

from conformance.capabilities import ProviderProfile
from conformance.codecs.lifecycle import Lifecycle
from conformance.codecs.ollama.reader import RecordReader
from conformance.model import AssistantMessage, ProviderError, StreamEvent
from conformance.wire import NDJSONDecoder, NDJSONRecord


class OllamaStream:
    """One per response; never reused."""

    def __init__(self, profile: ProviderProfile, *, events: bool = True) -> None:
        self._reader = RecordReader(profile, events=events)
        self._decoder = NDJSONDecoder()
        self._life = Lifecycle(self._reader.builder)

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        return self._handle(self._decoder.feed(chunk), final=False)

    def finish(self) -> AssistantMessage:
        self._handle(self._decoder.finish(), final=True)
        if not self._reader.done:
            self._reader.fail(ProviderError(kind="stream_interrupted", message="stream ended before done: true"))
        return self._reader.message()

    def _handle(self, records: list[NDJSONRecord], *, final: bool) -> list[StreamEvent]:
        for rec in records:
            self._life.start()
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
            self._life.settle(self._reader.done, self._reader.message)
        return self._reader.builder.new_events()
