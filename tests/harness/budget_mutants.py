"""Mutant runtimes for the max-tokens budget rows: the reference with one realistic budgeting bug
each, planted by swapping the budget function the request preparation calls."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any
from unittest import mock

from conformance.capabilities import ProviderProfile
from conformance.runtime.reference import ReferenceRuntime

prepare = importlib.import_module("conformance.runtime.prepare")  # the package exports a function of that name


class NoOutputClamp(ReferenceRuntime):
    """Sends the caller's `max_tokens` as it is: no clamp to the model's output limit (the
    profile's default is still used when the caller gives none)."""

    name = "mutant-no-output-clamp"

    def encode(self, conversation: Any, provider: str) -> Any:
        original = prepare.effective_max_tokens

        def passthrough(
            requested: int | None,
            profile: ProviderProfile,
            model: str | None,
            messages: Sequence[Any],
            *a: Any,
            **kw: Any,
        ) -> int:
            return requested if requested is not None else original(requested, profile, model, messages, *a, **kw)

        with mock.patch.object(prepare, "effective_max_tokens", passthrough):
            return super().encode(conversation, provider)
