"""The harness's "request not in cassette" signal, as an adapter sees it."""

from __future__ import annotations

from conformance.replay.player import ReplayMismatch


def reraise_replay_mismatch(exc: BaseException) -> None:
    """Re-raise the harness's `ReplayMismatch` when a library wrapped it (as a connection error, say):
    it is the harness's verdict to give, not an outcome of the runtime. Returns when there is none."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ReplayMismatch):
            raise current
        seen.add(id(current))
        current = current.__cause__ or current.__context__


__all__ = ["ReplayMismatch", "reraise_replay_mismatch"]
