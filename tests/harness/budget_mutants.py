"""Mutant runtimes for the max-tokens budget rows: the reference with one realistic budgeting bug
each, planted by swapping the budget function the request preparation calls."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any
from unittest import mock

from conformance.capabilities import ProviderProfile
from conformance.runtime.budget import estimate_input_tokens
from conformance.runtime.reference import ReferenceRuntime

prepare = importlib.import_module("conformance.runtime.prepare")  # the package exports a function of that name


class NoOutputClamp(ReferenceRuntime):
    """Clamps the caller's `max_tokens` to what the context window leaves, but not to the model's
    output limit (the profile's default is still used when the caller gives none)."""

    name = "mutant-no-output-clamp"

    def encode(self, conversation: Any, provider: str) -> Any:
        original = prepare.effective_max_tokens

        def window_only(
            requested: int | None,
            profile: ProviderProfile,
            model: str | None,
            messages: Sequence[Any],
            tools: Sequence[Any] = (),
            **kw: Any,
        ) -> int:
            if requested is None:
                return original(requested, profile, model, messages, tools, **kw)
            room = profile.model_info(model).context_window - estimate_input_tokens(messages, tools)
            return max(1, min(requested, room))

        with mock.patch.object(prepare, "effective_max_tokens", window_only):
            return super().encode(conversation, provider)


class NoWindowClamp(ReferenceRuntime):
    """Clamps the caller's `max_tokens` to the model's output limit only, never to what the context
    window leaves after the prompt: right wherever the output limit is far below the window."""

    name = "mutant-no-window-clamp"

    def encode(self, conversation: Any, provider: str) -> Any:
        original = prepare.effective_max_tokens

        def output_only(
            requested: int | None,
            profile: ProviderProfile,
            model: str | None,
            messages: Sequence[Any],
            tools: Sequence[Any] = (),
            **kw: Any,
        ) -> int:
            if requested is None:
                return original(requested, profile, model, messages, tools, **kw)
            return max(1, min(requested, profile.model_info(model).max_output))

        with mock.patch.object(prepare, "effective_max_tokens", output_only):
            return super().encode(conversation, provider)
