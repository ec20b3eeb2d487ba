"""Request validators: the documented request rules of each dialect, checked on the wire body.

Each dialect's validator lives in its codec package (`codecs/<dialect>/validate.py`) and is the
codec's `validate`, so a new dialect is one package. `validate(body, profile)` returns the
`Violation`s of the body for the profile's dialect (empty when it follows every rule we check).
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs import codec_for
from conformance.codecs.validation import Validator, Violation


def validate(body: dict[str, Any], profile: ProviderProfile) -> list[Violation]:
    """The violations of `body` for the dialect of `profile` (none when the codec has no validator)."""
    check = codec_for(profile).validate
    return [] if check is None else check(body, profile)


__all__ = ["Validator", "Violation", "validate"]
