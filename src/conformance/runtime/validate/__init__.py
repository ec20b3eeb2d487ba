"""Request validators: the documented request rules of each dialect, checked on the wire body.

`validate(body, profile)` picks the validator of ``profile.dialect`` from `VALIDATORS` and returns
the list of `Violation`s (empty when the body follows every rule we check).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.runtime.validate import anthropic, gemini, ollama, openai_chat, openai_responses
from conformance.runtime.validate.base import Violation

Validator = Callable[[dict[str, Any], ProviderProfile], list[Violation]]

VALIDATORS: dict[str, Validator] = {
    "openai_chat": openai_chat.validate_request,
    "openai_responses": openai_responses.validate_request,
    "anthropic": anthropic.validate_request,
    "gemini": gemini.validate_request,
    "ollama": ollama.validate_request,
}


def validate(body: dict[str, Any], profile: ProviderProfile) -> list[Violation]:
    """The violations of `body` for the dialect of `profile`."""
    return VALIDATORS[profile.dialect](body, profile)


__all__ = ["VALIDATORS", "Validator", "Violation", "validate"]
