"""A CONVERSATION.json read as plain call arguments, and a failed outcome built as the contract says."""

from __future__ import annotations

import json
from typing import Any

from conformance.exceptions import InputError


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the `text` blocks of a block list joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")


def conversation_parts(conversation: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    """(messages, options, model) of a CONVERSATION.json, checked enough to name what is wrong."""
    messages = conversation.get("messages")
    if not isinstance(messages, list):
        raise InputError("`messages` must be a list", where="conversation")
    options = conversation.get("options") or {}
    if not isinstance(options, dict):
        raise InputError("`options` must be an object", where="conversation")
    return messages, dict(options), str(conversation.get("model") or "")


def arguments_json(block: dict[str, Any]) -> str:
    """A tool call block's arguments as the compact JSON string wire formats carry."""
    return json.dumps(block.get("arguments") or {}, separators=(",", ":"))


def failed(error: dict[str, Any], partial: dict[str, Any] | None) -> dict[str, Any]:
    """The outcome of a response that failed after `partial` arrived: the partial message carries the
    error too (docs/normalized-form.md); an error the provider sent ends it with `stop_reason: error`."""
    if partial is not None:
        partial = {**partial, "error": error}
        if error.get("kind") != "stream_interrupted":
            partial["stop_reason"] = "error"
    return {"error": error, "partial": partial}
