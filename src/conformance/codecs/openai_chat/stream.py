"""A `chat.completion.chunk` SSE stream → `StreamEvent`s and one `AssistantMessage`.

Frames come from the shared SSE decoder (comments such as `: OPENROUTER PROCESSING` and
`: keep-alive` are skipped there). `data: [DONE]` is optional; the stream is complete once choice 0
has a `finish_reason` (Perplexity sends no `[DONE]`: its last chunk, `chat.completion.done`, has the
finish reason) or once `[DONE]` arrives after a chunk (Snowflake Cortex names no `finish_reason`:
the stop reason is then `tool_use` or `stop` from the content, with no raw reason). Usage is
taken from whichever chunk carries it (the last one with `include_usage`, OpenRouter, Groq's
`x_groq`, every chunk of Perplexity's) and a later `"usage": null` never erases it. Web sources
(the profile's `sources_fields`) are taken from the last chunk that lists them.
Errors inside the 200 stream — a chunk with a top-level `error` (OpenAI, OpenRouter with
`finish_reason: "error"`), an `event: error` frame (Groq), or a frame that is not JSON — end the
message with the typed error and the partial kept. A stream that stops before a `finish_reason`
and without `[DONE]` (including one cut inside its last frame) ends with `stream_interrupted`.

Events: `start` with the first chunk; text, thinking and tool-call deltas as they arrive; the
`toolcall_end`s when choice 0 finishes; `done` once the finished message has its usage (the chunk
that carries it, else `[DONE]`; a stream with neither reports the message only from `finish()`);
`error` when the stream fails.
"""

from __future__ import annotations

from typing import Any

import orjson

from conformance.capabilities import ProviderProfile
from conformance.codecs.builder import MessageBuilder
from conformance.codecs.openai_chat.content import ChoiceState, first_choice, sources_of, usage_of
from conformance.codecs.openai_chat.finish import body_error, fail, set_finish
from conformance.codecs.sse_stream import SSEStream
from conformance.jsonvalue import MAX_DEPTH, bounded
from conformance.model import DoneEvent, ErrorEvent, StartEvent


class OpenAIChatStream(SSEStream):
    """Per-stream state; one instance per response, never reused."""

    UNFINISHED = "stream ended before a finish_reason"

    def __init__(self, profile: ProviderProfile, *, events: bool = True) -> None:
        super().__init__(MessageBuilder(provider=profile.name, events=events))
        self._profile = profile
        self._sources = bool(profile.sources_fields)
        self._state = ChoiceState(profile, self._builder)
        self._done_sent = False

    def _flush(self) -> None:
        self._state.flush()

    def _done(self) -> None:
        if self._finished and not self._failed and not self._done_sent:
            self._done_sent = True
            self._builder.emit(lambda: DoneEvent(message=self._builder.build()))

    def _fail(self, payload: Any) -> None:
        self._failed = True
        error = fail(self._builder, payload)
        self._builder.emit(lambda: ErrorEvent(error=error, partial=self._builder.build()))

    def _choice(self, choice: dict[str, Any]) -> None:
        """The first choice of a chunk: its delta, then its finish reason."""
        state = self._state
        delta = choice.get("delta")
        if delta.__class__ is dict:
            content = delta.get("content")
            if len(delta) == 1 and content.__class__ is str and state.tags is None:
                if content:
                    state.text(content)  # the common delta: text only
            elif len(delta) != 1 or not state.argument_fragment(delta.get("tool_calls")):
                state.apply(delta)
        reason = choice.get("finish_reason")
        if reason and reason.__class__ is str and not self._finished:
            state.flush()
            state.close_tools()
            set_finish(state, reason)
            self._finished = True

    def _end_without_reason(self) -> None:
        """`data: [DONE]` ends the stream (OpenAI's documented terminator): choice 0 is complete even
        when no chunk named a `finish_reason` (Snowflake Cortex sends none). Its stop reason is
        what the message holds — `tool_use` with calls, else `stop` — and no raw reason."""
        if not self._started or self._finished:
            self._done()
            return
        state = self._state
        state.flush()
        state.close_tools()
        state.builder.set_stop(None, "tool_use" if state.builder.has_tool_calls() else "stop")
        self._finished = True
        self._done()

    def _frame(self, event: str, raw: str, final: bool) -> None:
        self._frames += 1
        if self._failed:
            return
        if raw == "[DONE]":
            self._end_without_reason()
            return
        if not self._started:
            self._started = True
            self._builder.emit(StartEvent)
        try:
            data: Any = orjson.loads(raw)  # jsonvalue.loads inlined: this runs once per event
            if len(raw) > MAX_DEPTH:
                data = bounded(raw, data)
        except orjson.JSONDecodeError:
            if final:  # the last frame of a cut stream, not corrupt data: finish() reports the cut
                return
            self._fail({"error": {"message": f"SSE event {self._frames} is not valid JSON", "type": "server_error"}})
            return
        if data.__class__ is not dict:  # orjson gives exact types
            return
        choices = data.get("choices")
        first = choices[0] if choices.__class__ is list and choices else None
        choice = first if first.__class__ is dict and first.get("index", 0) == 0 else first_choice(data)
        model = data.get("model")
        if model is not None and model != self._builder.model and isinstance(model, str):
            self._builder.model = model
        usage = usage_of(data, self._profile) if data.get("usage") is not None or "x_groq" in data else None
        if usage is not None:
            self._builder.usage = usage
        if self._sources:  # repeated on every chunk (Perplexity): the last list wins
            sources = sources_of(data, self._profile)
            if sources is not None:
                self._builder.sources = sources
        if choice is not None:
            self._choice(choice)
        error = body_error(data, choice) if "error" in data or (choice is not None and "error" in choice) else None
        if error is not None or event == "error":
            self._fail(error if error is not None else data)
        elif usage is not None:
            self._done()
