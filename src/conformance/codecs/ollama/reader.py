"""One Ollama `/api/chat` answer, read record by record into the shared `MessageBuilder`.

A non-streaming body is one record; a stream is NDJSON records with `message.content` /
`message.thinking` increments, whole tool calls in `done: false` records, and a final
`done: true` record with `done_reason` and the token counts. Consecutive increments of the same
kind append to one block; tool calls are keyed by arrival order (`function.index` restarts per
record on some servers), and id-less calls get the builder's `call_<n>`.
"""

from __future__ import annotations

from typing import Any, Literal

from conformance.capabilities import ProviderProfile
from conformance.codecs.builder import MessageBuilder
from conformance.codecs.ollama.errors import error_from_message, error_message
from conformance.codecs.ollama.prompt_tools import extract_calls
from conformance.codecs.ollama.tables import DONE_REASONS, DONE_WITHOUT_REASON, UNKNOWN_DONE
from conformance.model import AssistantMessage, ProviderError, Usage

_TextKind = Literal["text", "thinking"]


class RecordReader:
    def __init__(self, profile: ProviderProfile, *, events: bool = True) -> None:
        self.profile = profile
        self.builder = MessageBuilder(provider=profile.name, events=events)
        self.done = False
        self._run: tuple[_TextKind, int] | None = None
        self._next_key = 0
        self._raw_done: str | None = None

    def fail(self, error: ProviderError) -> None:
        """End with `error`; a provider's error (not a cut stream) also makes the stop reason `error`."""
        if self.builder.error is None:
            self.builder.error = error
            if error.kind != "stream_interrupted":
                self.builder.set_stop(self.builder.raw_stop_reason, "error")

    def _key(self, kind: _TextKind | None) -> int:
        if kind is not None and self._run is not None and self._run[0] == kind:
            return self._run[1]
        self._next_key += 1
        self._run = None if kind is None else (kind, self._next_key)
        return self._next_key

    def record(self, obj: Any, *, where: str) -> None:
        if not isinstance(obj, dict):
            self.fail(ProviderError(kind="server", message=f"{where}: expected a JSON object"))
            return
        if (message := error_message(obj)) is not None:
            self.fail(error_from_message(message, status=None))
            return
        if isinstance(obj.get("model"), str):
            self.builder.model = obj["model"]
        msg = obj.get("message")
        if isinstance(msg, dict):
            self._message(msg)
        if obj.get("done") is True:
            self.done = True
            reason = obj.get("done_reason")
            self._raw_done = reason if isinstance(reason, str) else None
            prompt, output = obj.get("prompt_eval_count"), obj.get("eval_count")
            if isinstance(prompt, int) or isinstance(output, int):
                self.builder.usage = Usage(
                    input_tokens=prompt if isinstance(prompt, int) else 0,
                    output_tokens=output if isinstance(output, int) else 0,
                )

    def _message(self, msg: dict[str, Any]) -> None:
        thinking = msg.get("thinking")
        if isinstance(thinking, str) and thinking:
            self.builder.thinking(self._key("thinking"), thinking)
        content = msg.get("content")
        if isinstance(content, str) and content:
            self.builder.text(self._key("text"), content)
        calls = msg.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                continue
            key = self._key(None)
            call_id = call.get("id")
            self.builder.tool_call(
                key,
                id=call_id if isinstance(call_id, str) and call_id else None,
                name=function.get("name") if isinstance(function.get("name"), str) else None,
                arguments=function.get("arguments") if function.get("arguments") is not None else {},
            )
            self.builder.close(key)

    def message(self) -> AssistantMessage:
        if self.done:
            raw = self._raw_done
            normalized = DONE_WITHOUT_REASON if raw is None else DONE_REASONS.get(raw, UNKNOWN_DONE)
            if normalized == "stop" and self.builder.has_tool_calls():
                normalized = "tool_use"
            self.builder.set_stop(raw, normalized)
        message = self.builder.build()
        if not self.profile.model_info(message.model).native_tools:
            message = extract_calls(message)
        return message
