"""Request validators: the request rules of each dialect's rule book, checked on the wire body.

Each dialect's validator lives in its codec package (`codecs/<dialect>/validate.py`) and finds
where a body breaks a rule; the dialect's rule book (`codecs/<dialect>/rules.py`) says whether the
rule holds for the provider and model and on what source. `validate(body, profile)` returns the
`Violation`s of the structural rules the provider enforces (the shape of the conversation and the
tools; sourced, rejecting, in scope): empty when its history and tools are ones it accepts. The
values of options (`temperature`), refused fields and token limits are not judged here: the
conversation chose them. `conformance.codecs.reading.read_request` gives every finding, notes too.
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.reading import broken, request_model
from conformance.codecs.rulebook import Rule
from conformance.codecs.validation import PENDING_CALL, Validator, Violation


def validate(body: dict[str, Any], profile: ProviderProfile, *, awaiting_tools: bool = False) -> list[Violation]:
    """The violations of `body` that `profile`'s provider rejects (none when the codec has no validator).

    `awaiting_tools`: the body is a transcript put on the wire, not a request sent: calls at its end
    may be waiting for their tools, so `PENDING_CALL` is left out."""
    return [v for v, _ in rejected(body, profile, awaiting_tools=awaiting_tools)]


def rejected(
    body: dict[str, Any], profile: ProviderProfile, *, awaiting_tools: bool = False
) -> list[tuple[Violation, Rule]]:
    """`validate`'s violations, each with the rule book entry it breaks (and its source)."""
    model = request_model(body, profile)
    return [
        (v, rule)
        for v, rule in broken(body, profile, model, awaiting_tools=awaiting_tools)
        if rule is not None and rule.sourced and rule.effect == "rejects" and rule.kind in _STRUCTURAL
    ]


_STRUCTURAL = frozenset({"structure", "schema"})


__all__ = ["PENDING_CALL", "Validator", "Violation", "rejected", "validate"]
