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


Compactor = Callable[[Conversation, Why], Awaitable[Compacted | None]]
"""Called before the first send (`threshold`: compact when the history is over the threshold, else
return None) and after a context overflow (`overflow`: compact what can be compacted)."""
