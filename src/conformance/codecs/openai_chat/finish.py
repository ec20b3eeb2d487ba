"""Ending a response: stop reason, refusal, and the errors a 200 response can carry."""

from __future__ import annotations

from typing import Any

from conformance.codecs.builder import MessageBuilder
from conformance.codecs.openai_chat.content import ChoiceState
from conformance.codecs.openai_chat.errors import error_from_payload
from conformance.codecs.openai_chat.tables import FINISH_REASONS
from conformance.model import ProviderError


def set_finish(state: ChoiceState, raw: str) -> None:
    """`finish_reason` → stop reason; a refusal makes it `refusal` (the wire value stays raw)."""
    normalized = FINISH_REASONS.get(raw) or FINISH_REASONS.get(raw.lower())
    if normalized is None:
        normalized = "tool_use" if state.builder.has_tool_calls() else "stop"
    if state.refused and normalized == "stop":
        normalized = "refusal"
    state.builder.set_stop(raw, normalized)


def fail(builder: MessageBuilder, payload: Any) -> ProviderError:
    """A mid-response error: the partial message gets the error and stop reason `error`."""
    error = builder.error = error_from_payload(payload, status=None)
    builder.set_stop(builder.raw_stop_reason, "error")
    return error


def body_error(data: dict[str, Any], choice: dict[str, Any] | None) -> Any:
    """The error a 200 body or chunk carries: top level (OpenAI, OpenRouter, xAI) or on the choice."""
    if data.get("error") is not None:
        return data
    if choice is not None and choice.get("error") is not None:
        return {"error": choice["error"]}
    return None
