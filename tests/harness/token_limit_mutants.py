"""Mutant runtimes for the default token-limit row: the reference with one realistic bug each in
the limit it sends when the conversation asks for none, and a correct variant that sends the
model's own output limit instead of the provider default."""

from __future__ import annotations

from typing import Any

from conformance.capabilities import get_profile
from conformance.runtime.reference import ReferenceRuntime


def _asks_no_limit(conversation: dict[str, Any]) -> bool:
    return (conversation.get("options") or {}).get("max_tokens") is None


class OmitsRequiredLimit(ReferenceRuntime):
    """Sends a token limit only when the conversation asks for one, even where the provider requires it."""

    name = "mutant-omits-required-limit"

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        body = super().encode(conversation, provider)
        if _asks_no_limit(conversation):
            body.pop(get_profile(provider).max_tokens_field, None)
        return body


class FixedLargeDefault(ReferenceRuntime):
    """Where a limit is required and none is asked, sends one fixed default for every model (128,000),
    more than the model writes."""

    name = "mutant-fixed-large-default"

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        body = super().encode(conversation, provider)
        field = get_profile(provider).max_tokens_field
        if _asks_no_limit(conversation) and field in body:
            body[field] = 128_000
        return body


class SendsModelLimit(ReferenceRuntime):
    """Correct: where a limit is required and none is asked, sends the model's own output limit."""

    name = "sends-model-limit"

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        body = super().encode(conversation, provider)
        profile = get_profile(provider)
        if _asks_no_limit(conversation) and profile.max_tokens_field in body:
            model = conversation.get("model") or profile.default_model
            body[profile.max_tokens_field] = profile.model_info(model).max_output
        return body
