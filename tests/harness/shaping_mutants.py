"""Mutant runtimes for the history-shaping guard rows (seeds 001 and 003): the reference with one
realistic bug each, planted in the capability its row judges."""

from __future__ import annotations

from typing import Any

from conformance.runtime.reference import ReferenceRuntime

FIXED_CAP = 256
"""The one per-age cap a runtime without derived caps falls back on (characters)."""


class FixedTrimCaps(ReferenceRuntime):
    """Trims older turns to one fixed cap when the user sets none, instead of deriving the caps from
    the room `max_history_tokens` leaves and the history's density."""

    name = "mutant-fixed-trim-caps"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        settings = request.get("settings")
        if request.get("op") == "trim" and isinstance(settings, dict) and not settings.get("caps"):
            request = {**request, "settings": {**settings, "caps": [FIXED_CAP]}}
        return super().context(request, transport)
