"""Mutant stores for the store rows that judge identical edits and planted corruption: the
reference store with one realistic bug each (an identical edit written anyway, a path that follows
a parent into another conversation, a dangling bookmark resolved to its stored id, an fsck that
reads the registry as a set or looks for temp files only inside conversations)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.runtime.reference import ReferenceRuntime
from conformance.store import Store
from conformance.store.errors import CorruptStoreError, NotFoundError
from conformance.store.model import SOURCE_USER, Node, with_content
from conformance.store.session import StoreSession


class IdenticalEditWritten(Store):
    """Takes every edit for a change: an identical edit branches a node with children and marks a leaf as the user's."""

    def edit(self, node_id: Any, content: Any) -> tuple[str, bool]:
        node = self.get(node_id)
        if node.parent is None or with_content(node.message, content, where=node.id) != node.message:
            return super().edit(node_id, content)
        now = self.clock()
        with self.backend.transaction(node.root) as tx:
            if not self.backend.children(node.id):
                tx.put[node.id] = Node(
                    node.id, node.root, node.parent, node.seq, node.message, dict(SOURCE_USER), node.created, now
                )
                return node.id, False
            nid = self.ids.node()
            seq = self.backend.next_seq(node.root)
            tx.put[nid] = Node(nid, node.root, node.parent, seq, node.message, dict(SOURCE_USER), now, now)
            return nid, True


class PathAcrossConversations(Store):
    """Walks a stored parent chain without checking that each parent belongs to the node's conversation."""

    def _ancestry(self, node: Node) -> list[Node]:
        chain = [node]
        while node.parent is not None:
            try:
                node = self.backend.get(node.parent)
            except NotFoundError:
                raise CorruptStoreError("orphan_parent", f"parent {node.parent} is gone", where=node.id) from None
            chain.append(node)
        chain.reverse()
        return chain


class ResolvesDanglingBookmarks(Store):
    """Returns whatever id bookmarks.json holds, whether or not that node exists."""

    def resolve(self, root: Any, name: Any) -> str:
        marks = self.bookmarks(root)
        if name not in marks:
            return super().resolve(root, name)
        return marks[name]


class _Session(StoreSession):
    def fsck(self) -> list[dict[str, str]]:
        return [v for v in super().fsck() if not self.hides(v)]

    def hides(self, violation: dict[str, str]) -> bool:
        return False


class RegistryAsSet(_Session):
    """fsck reads roots.json into a set: a conversation registered twice is not seen."""

    def hides(self, violation: dict[str, str]) -> bool:
        return violation["kind"] == "duplicate_root"


class TempsOnlyInConversations(_Session):
    """fsck looks for interrupted writes inside conversation directories only, never at the top level."""

    def hides(self, violation: dict[str, str]) -> bool:
        where = Path(violation["where"])
        return violation["kind"] == "leftover_temp" and where.parent in (self.directory, self.directory.resolve())


class StoreMutant(ReferenceRuntime):
    """The reference runtime with a mutant store class or session class."""

    def __init__(self, store_class: type[Store] = Store, session_class: type[StoreSession] = StoreSession) -> None:
        self.store_class, self.session_class = store_class, session_class
        self.name = f"mutant-{store_class.__name__ if store_class is not Store else session_class.__name__}"

    def store_session(self, backend: str, directory: str, options: dict[str, Any] | None = None) -> Any:
        session = self.session_class(backend, directory, options)
        store = session.store
        session.store = self.store_class(
            store.backend, id_factory=store.ids, clock=store.clock, max_depth=store.max_depth
        )
        return session
