"""What a backend provides: reads, and one atomic transaction per operation.

The operations (`conformance.store.store.Store`) are written once over this interface; a backend
only stores. A transaction collects every change of one operation and applies all of them or none.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Protocol

from conformance.store.model import Node


@dataclass
class Changes:
    """Everything one operation writes, applied at once by `Backend.transaction`."""

    new_root: str | None = None
    put: dict[str, Node] = field(default_factory=dict)
    delete: list[Node] = field(default_factory=list)
    bookmarks: dict[str, dict[str, str]] = field(default_factory=dict)
    """root → the conversation's complete bookmark mapping after the operation."""

    def empty(self) -> bool:
        return not (self.new_root or self.put or self.delete or self.bookmarks)


class Backend(Protocol):
    name: str

    def refresh(self) -> None:
        """Called at the start of every operation: drop what another writer may have changed."""
        ...

    def roots(self) -> list[str]:
        """Registered root ids in creation order."""
        ...

    def get(self, node_id: str) -> Node:
        """The node; NotFoundError(missing_node) when absent, CorruptStoreError when unreadable."""
        ...

    def parent_of(self, node_id: str) -> str | None:
        """The parent id from the structure index (no message read); NotFoundError when absent."""
        ...

    def children(self, node_id: str) -> list[str]:
        """Child ids in creation (`seq`) order."""
        ...

    def next_seq(self, root: str) -> int: ...

    def bookmarks(self, root: str) -> dict[str, str]: ...

    def root_of(self, node_id: str) -> str:
        """The root id of the conversation holding `node_id`; NotFoundError when none does."""
        ...

    def reading(self, root: str) -> AbstractContextManager[None]:
        """A consistent read of one conversation (no writer's operation half seen)."""
        ...

    def transaction(self, root: str | None) -> AbstractContextManager[Changes]:
        """Lock the conversation (writers only), yield a `Changes` to fill, commit it atomically
        when the block exits normally; on an exception nothing is written."""
        ...

    def close(self) -> None: ...
