"""A non-streaming `response` object → `AssistantMessage`, through the builder.

A `failed` response ends with its `error` and stop reason `error` (the partial output kept); a
`queued` or `in_progress` one (background mode) has no stop reason yet.
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.builder import MessageBuilder
from conformance.codecs.openai_chat.errors import error_from_payload
from conformance.codecs.openai_responses.errors import response_error
from conformance.codecs.openai_responses.items import ItemState, items_of, set_stop, usage_of
from conformance.model import AssistantMessage


def apply_response(state: ItemState, response: dict[str, Any], *, items: bool) -> None:
    """Model, usage, stop reason and error of a whole response (`items`: its output items too)."""
    builder = state.builder
    if isinstance(response.get("model"), str):
        builder.model = response["model"]
    if items:
        for n, item in enumerate(items_of(response.get("output"))):
            if isinstance(item, dict):
                state.item(("item", n), item)
    usage = usage_of(response)
    if usage is not None:
        builder.usage = usage
    set_stop(state, response)
    if response.get("status") == "failed" or (response.get("error") is not None and "output" in response):
        builder.error = response_error(response)
        builder.set_stop(builder.raw_stop_reason or "failed", "error")


def decode(data: Any, profile: ProviderProfile) -> AssistantMessage:
    builder = MessageBuilder(provider=profile.name)
    if not isinstance(data, dict):
        builder.error = error_from_payload(
            {"error": {"message": "response body is not a JSON object", "type": "server_error"}}, status=None
        )
        builder.set_stop(None, "error")
        return builder.build()
    if "output" not in data and isinstance(data.get("error"), dict):
        builder.error = error_from_payload(data, status=None)  # an error envelope with a 200 status
        builder.set_stop(None, "error")
        return builder.build()
    apply_response(ItemState(builder), data, items=True)
    return builder.build()
