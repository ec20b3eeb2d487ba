"""A non-streaming `chat.completion` body → `AssistantMessage` (choice 0), through the builder."""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.builder import MessageBuilder
from conformance.codecs.openai_chat.content import ChoiceState, first_choice, sources_of, usage_of
from conformance.codecs.openai_chat.finish import body_error, fail, set_finish
from conformance.model import AssistantMessage


def decode(data: Any, profile: ProviderProfile) -> AssistantMessage:
    builder = MessageBuilder(provider=profile.name)
    if not isinstance(data, dict):
        fail(builder, {"error": {"message": "response body is not a JSON object", "type": "server_error"}})
        return builder.build()
    builder.model = data.get("model") if isinstance(data.get("model"), str) else None
    state = ChoiceState(profile, builder)
    choice = first_choice(data)
    if choice is not None and isinstance(choice.get("message"), dict):
        state.apply(choice["message"], whole=True)
        state.flush()
    builder.usage = usage_of(data, profile)
    builder.sources = sources_of(data, profile)
    if choice is not None and isinstance(choice.get("finish_reason"), str):
        set_finish(state, choice["finish_reason"])
    error = body_error(data, choice)
    if error is not None:
        fail(builder, error)
    return builder.build()
