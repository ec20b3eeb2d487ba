"""What the turn loop needs from compaction, kept apart so `runtime.turn` imports no more than this."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from conformance.model import Conversation, ProviderError

Why = Literal["threshold", "overflow"]


@dataclass(frozen=True)
class Compacted:
    """A compaction done for the turn loop: the new conversation and how many messages it summarised,
    or the error of the summarisation (the turn then goes on, or gives up, without it)."""

    conversation: Conversation | None
    count: int = 0
    reason: str = ""
    error: ProviderError | None = None
    action: Literal["compact", "trim"] = "compact"
    """The trace step: `trim` when the history was only trimmed (`trim`), not summarised."""


Compactor = Callable[[Conversation, Why], Awaitable[Compacted | None]]
"""Called before the first send (`threshold`: trim or compact when the history is over the budget,
else return None) and after a context overflow (`overflow`: compact what can be compacted)."""
