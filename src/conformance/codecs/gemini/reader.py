"""One Gemini answer, read from its response objects into the shared `MessageBuilder`.

The same reader serves the JSON body (one object, or a JSON array of chunks) and the SSE
stream (one object per event), so both paths give the same message, ids included.

Part rules (GEM, GEM-DOC thought signatures):
- consecutive text parts of the same kind (thought or not) append to one block, across chunks,
  until a part of another kind arrives; a part carrying `thoughtSignature` ends its block;
- an empty text part carrying only a signature is its own empty text block, so the signature
  goes back on a part of its own;
- `functionCall` parts arrive whole; id-less calls get the builder's `call_<n>`;
- work of Google's own tools (`executableCode`, `codeExecutionResult`, server-side
  `toolCall`/`toolResponse`) is one `server_tool` block per part, the part kept whole
  (its `thoughtSignature` too) so it goes back unchanged;
- parts the canonical model cannot hold (`inlineData`, `fileData`) are counted in
  `unsupported_parts`.
"""

from __future__ import annotations

from typing import Any, Literal

from conformance.capabilities import ProviderProfile
from conformance.codecs.builder import MessageBuilder
from conformance.codecs.gemini.errors import error_from_payload
from conformance.codecs.gemini.tables import BLOCKED_PROMPT, FINISH_REASONS, NUMERIC_FINISH_REASONS, UNKNOWN_FINISH
from conformance.jsonvalue import MAX_DEPTH, depth
from conformance.model import AssistantMessage, ProviderError, ServerToolBlock, Usage

_TextKind = Literal["text", "thinking"]

SERVER_PARTS = ("executableCode", "codeExecutionResult", "toolCall", "toolResponse")
"""Part kinds that hold work Google's own tools did: each is a `server_tool` block."""

UNSUPPORTED_PARTS = frozenset(
    {
        "inlineData",
        "fileData",
        "functionResponse",
    }
)
"""Part kinds with no canonical block (generated media, a function response in a model turn)."""


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def usage_from(meta: dict[str, Any]) -> Usage:
    """Gemini counts thoughts apart from `candidatesTokenCount`: output includes them."""
    thoughts = _int(meta.get("thoughtsTokenCount"))
    return Usage(
        input_tokens=_int(meta.get("promptTokenCount")),
        output_tokens=_int(meta.get("candidatesTokenCount")) + thoughts,
        cache_read_tokens=_int(meta.get("cachedContentTokenCount")),
        reasoning_tokens=thoughts,
    )


class ResponseReader:
    """Per-answer state. Feed response objects in order with `response()`."""

    def __init__(self, profile: ProviderProfile, *, events: bool = True) -> None:
        self.builder = MessageBuilder(provider=profile.name, events=events)
        self.finished = False
        """A finish reason (or a prompt block) arrived and no content after it."""
        self.unsupported_parts: list[str] = []
        self._run: tuple[_TextKind, int] | None = None
        self._next_key = 0
        self._raw_finish: str | None = None
        self._finish_name: str | None = None
        """The name of a numeric `finishReason`."""
        self._blocked: str | None = None

    def _new_key(self) -> int:
        self._next_key += 1
        return self._next_key

    def fail(self, error: ProviderError) -> None:
        """End with `error`; a provider's error (not a cut stream) also makes the stop reason `error`."""
        if self.builder.error is None:
            self.builder.error = error
            if error.kind != "stream_interrupted":
                self.builder.set_stop(self.builder.raw_stop_reason, "error")

    def response(self, obj: Any) -> None:
        """One `GenerateContentResponse` object (a whole body or one stream chunk)."""
        if not isinstance(obj, dict):
            got = type(obj).__name__
            self.fail(ProviderError(kind="server", message=f"expected a response object, got {got}"))
            return
        if (error := error_from_payload(obj)) is not None:
            self.fail(error)
            return
        if isinstance(obj.get("modelVersion"), str):
            self.builder.model = obj["modelVersion"]
        if isinstance(obj.get("usageMetadata"), dict):
            self.builder.usage = usage_from(obj["usageMetadata"])
        candidates = obj.get("candidates")
        candidate = _first_candidate(candidates)
        if candidate is None:
            feedback = obj.get("promptFeedback")
            reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
            if isinstance(reason, (str, int)) and not isinstance(reason, bool):
                self._blocked = str(reason)
                self.finished = True
            return
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        if isinstance(parts, list) and parts:
            self.finished = False
            for part in parts:
                if isinstance(part, dict):
                    self._part(part)
        finish = candidate.get("finishReason")
        if isinstance(finish, str):
            self._raw_finish, self._finish_name = finish, None
            self.finished = True
        elif isinstance(finish, int) and not isinstance(finish, bool):
            self._raw_finish = str(finish)
            self._finish_name = NUMERIC_FINISH_REASONS.get(finish)
            self.finished = True

    def _part(self, part: dict[str, Any]) -> None:
        signature = part.get("thoughtSignature") if isinstance(part.get("thoughtSignature"), str) else None
        call = part.get("functionCall")
        if isinstance(call, dict):
            self._run = None
            key = self._new_key()
            args = call.get("args")
            self.builder.tool_call(
                key,
                id=call.get("id") if isinstance(call.get("id"), str) else None,
                name=call.get("name") if isinstance(call.get("name"), str) else None,
                arguments={} if args is None else args,
                signature=signature,
            )
            self.builder.close(key)
            return
        server = next((k for k in SERVER_PARTS if isinstance(part.get(k), dict)), None)
        if server is not None and "text" not in part and depth(part) <= MAX_DEPTH:
            self._run = None
            key = self._new_key()
            self.builder.server_tool(key, server_block(server, part))
            self.builder.close(key)
            return
        if "text" not in part and (other := sorted(set(part) & UNSUPPORTED_PARTS)):
            self._run = None
            self.unsupported_parts.extend(other)
            return
        raw_text = part.get("text")
        text = raw_text if isinstance(raw_text, str) else ""
        kind: _TextKind = "thinking" if part.get("thought") is True else "text"
        if not text and signature is None:
            return  # an empty part carries nothing
        run = self._run
        key = run[1] if text and run is not None and run[0] == kind else self._new_key()
        if kind == "thinking":
            self.builder.thinking(key, text, signature=signature)
        else:
            self.builder.text(key, text, signature=signature)
        self._run = None if signature is not None else (kind, key)

    def message(self) -> AssistantMessage:
        """The message so far, with the normalized stop reason."""
        if self._raw_finish is not None:
            name = self._finish_name or self._raw_finish
            normalized = FINISH_REASONS.get(name, UNKNOWN_FINISH)
            if normalized == "stop" and self.builder.has_tool_calls():
                normalized = "tool_use"
            self.builder.set_stop(self._raw_finish, normalized)
        elif self._blocked is not None:
            self.builder.set_stop(self._blocked, BLOCKED_PROMPT)
        return self.builder.build()


def server_block(kind: str, part: dict[str, Any]) -> ServerToolBlock:
    """A server-side part as a `server_tool` block: `name` the part kind, `id` its `id` (a
    `toolResponse` answers the `toolCall` of the same id), `status` a code result's `outcome`."""
    inner = part[kind]
    ident, outcome = inner.get("id"), inner.get("outcome")
    return ServerToolBlock(
        dialect="gemini",
        name=kind,
        id=ident if isinstance(ident, str) else None,
        status=outcome if isinstance(outcome, str) else None,
        data=dict(part),
    )


def _first_candidate(candidates: Any) -> dict[str, Any] | None:
    """Candidate 0 (the only one unless `candidateCount` > 1)."""
    if not isinstance(candidates, list):
        return None
    found = [c for c in candidates if isinstance(c, dict)]
    for c in found:
        if c.get("index", 0) == 0:
            return c
    return found[0] if found else None
