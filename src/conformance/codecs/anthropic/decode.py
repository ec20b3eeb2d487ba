"""A non-streaming Messages response body → `AssistantMessage`, through the shared builder."""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.anthropic.content import add_block, as_object, set_stop, usage_of
from conformance.codecs.anthropic.errors import error_from_payload
from conformance.codecs.builder import MessageBuilder
from conformance.exceptions import WireFormatError
from conformance.model import AssistantMessage


def decode(data: Any, profile: ProviderProfile) -> AssistantMessage:
    """`{"type": "message", "content": [...], "stop_reason", "usage", "model", …}` → message.

    An error envelope in a 200 body gives an empty message carrying the error.
    """
    body = as_object(data, "response body")
    model = body.get("model")
    builder = MessageBuilder(provider=profile.name, model=model if isinstance(model, str) else None)
    if body.get("type") == "error":
        builder.error = error_from_payload(body, status=None)
        return builder.build()
    content = body.get("content") or []
    if not isinstance(content, list):
        raise WireFormatError("expected a list", where="response body: content")
    for index, block in enumerate(content):
        add_block(builder, index, as_object(block, f"response body: content[{index}]"), whole=True)
    set_stop(builder, body.get("stop_reason"))
    usage = body.get("usage")
    if isinstance(usage, dict):
        builder.usage = usage_of(usage)
    return builder.build()
