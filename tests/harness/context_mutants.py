"""Mutant runtimes for the context rows of the turn loop (the auto-compaction trigger): the
reference with one realistic bug each, planted through the turn's settings."""

from __future__ import annotations

import math
from typing import Any

from conformance.runtime.protocol import TurnRequest
from conformance.runtime.reference import ReferenceRuntime


class CompactsOnlyAboveThreshold(ReferenceRuntime):
    """Compacts once the history is over the threshold, not when it reaches it (`>` for `>=`):
    planted as a threshold one float step higher, which only a history exactly at it can tell."""

    name = "mutant-compacts-above-threshold"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        compaction = request.settings.get("compaction")
        if isinstance(compaction, dict) and "threshold" in compaction:
            threshold = float(compaction["threshold"])
            request.settings = {
                **request.settings,
                "compaction": {**compaction, "threshold": math.nextafter(threshold, math.inf)},
            }
        return super().turn(request)
