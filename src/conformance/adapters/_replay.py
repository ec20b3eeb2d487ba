"""The harness's "request not in cassette" signal, as an adapter sees it."""

from __future__ import annotations

from typing import Any

from conformance.replay.player import ReplayMismatch


def reraise_replay_mismatch(exc: BaseException | None, transport: Any = None) -> None:
    """Re-raise the harness's `ReplayMismatch` when a library wrapped it (as a connection error, say):
    it is the harness's verdict to give, not an outcome of the runtime. Returns when there is none.

    The exception's cause chain is searched; a library that raises a fresh exception of its own
    (no cause kept) is recognised by `transport` (the turn's), which keeps every request it could
    not match. The harness reads that marker after every call too, so an adapter that forgets
    this still gets the mismatch verdict; calling it early only saves the library's own retries."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ReplayMismatch):
            raise current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    mismatches = getattr(transport, "mismatches", None)
    if mismatches:
        raise mismatches[0]


__all__ = ["ReplayMismatch", "reraise_replay_mismatch"]
