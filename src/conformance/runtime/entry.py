"""Input validation at the runtime's entry: clear errors before any request is made."""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.exceptions import InputError
from conformance.model import Conversation
from conformance.model.parse import parse_conversation


def validate_entry(
    conversation: dict[str, Any] | Conversation, profile: ProviderProfile, key: str | None
) -> Conversation:
    """The conversation, checked: a key where the provider needs one, a model, messages and tool
    schemas that can be sent. Errors name the field (`messages[2].content[0].text`, `tools[0]`)."""
    if profile.auth_style != "none" and (key is None or not key.strip()):
        names = " or ".join(profile.key_env) or "an API key"
        raise InputError(f"{profile.name} needs an API key ({names})", where="api key")
    return validate_conversation(conversation, profile)


def validate_conversation(conversation: dict[str, Any] | Conversation, profile: ProviderProfile) -> Conversation:
    """A model, messages and tool schemas that can be sent."""
    conv = conversation if isinstance(conversation, Conversation) else parse_conversation(conversation)
    if not (conv.model or profile.default_model):
        raise InputError("no model given and the profile has no default", where="model")
    if not conv.messages:
        raise InputError("at least one message is needed", where="messages")
    for i, tool in enumerate(conv.tools):
        params = tool.parameters
        if params.get("type", "object") != "object":
            raise InputError("tool parameters must be an object schema", where=f"tools[{i}].parameters")
        if not isinstance(params.get("properties", {}), dict):
            raise InputError("`properties` must be a mapping", where=f"tools[{i}].parameters.properties")
        if not tool.name:
            raise InputError("a tool needs a name", where=f"tools[{i}].name")
    return conv
