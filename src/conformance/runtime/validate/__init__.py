"""Request validators: the documented request rules of each dialect, checked on the wire body.

Each dialect's validator lives in its codec package (`codecs/<dialect>/validate.py`) and is the
codec's `validate`, so a new dialect is one package. `validate(body, profile)` returns the
`Violation`s of the body for the profile's dialect (empty when it follows every rule we check).
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs import codec_for
from conformance.codecs.validation import PENDING_CALL, Validator, Violation


def validate(body: dict[str, Any], profile: ProviderProfile, *, awaiting_tools: bool = False) -> list[Violation]:
    """The violations of `body` for the dialect of `profile` (none when the codec has no validator).

    `awaiting_tools`: the body is a transcript put on the wire, not a request sent: calls at its end
    may be waiting for their tools, so `PENDING_CALL` is left out."""
    check = codec_for(profile).validate
    found = [] if check is None else check(body, profile)
    return [v for v in found if v.rule != PENDING_CALL] if awaiting_tools else found


__all__ = ["PENDING_CALL", "Validator", "Violation", "validate"]
