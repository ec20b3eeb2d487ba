"""The message-level events of a stream whose frames each hold a whole response so far (Gemini
JSON chunks, Ollama NDJSON records): `start` before the first frame's deltas, `done` once the
stream has finished without an error, `error` once it has one (also after a `done`, when a frame
after the finish reports a failure: the final message then carries the error)."""

from __future__ import annotations

from collections.abc import Callable

from conformance.codecs.builder import MessageBuilder
from conformance.model import AssistantMessage, DoneEvent, ErrorEvent, StartEvent


class Lifecycle:
    def __init__(self, builder: MessageBuilder) -> None:
        self._builder = builder
        self._started = False
        self._done = False
        self._failed = False

    def start(self) -> None:
        """Call before handling each frame."""
        if not self._started:
            self._started = True
            self._builder.emit(StartEvent)

    def settle(self, finished: bool, message: Callable[[], AssistantMessage]) -> None:
        """Call after handling each frame: `error` once the builder has one, else `done` once the
        stream has `finished`."""
        builder = self._builder
        error = builder.error
        if error is not None:
            if not self._failed:
                self._failed = True
                builder.emit(lambda: ErrorEvent(error=error, partial=message()))
        elif finished and not self._done:
            self._done = True
            builder.emit(lambda: DoneEvent(message=message()))
