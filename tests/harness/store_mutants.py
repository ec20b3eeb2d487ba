"""Mutant stores for the store rows that judge identical edits and planted corruption: the
reference store with one realistic bug each (an identical edit written anyway, a path that follows
a parent into another conversation, a dangling bookmark resolved to its stored id, an fsck that
reads the registry as a set or looks for temp files only inside conversations), and one for each
corrupt layout of seed 002 (a parented root, a stored cycle, a missing parent, an unreadable registry
or node file, writes into a corrupted region, the two misleading errors, a duplicated registry
entry listed twice)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.runtime.reference import ReferenceRuntime
from conformance.store import Store
from conformance.store.errors import CorruptStoreError, NotFoundError, StoreError
from conformance.store.files import Structure, parse_node
from conformance.store.layout import NODES
from conformance.store.model import SOURCE_USER, Node, with_content
from conformance.store.repair import quarantine
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
        chain, seen = [node], {node.id}
        while node.parent is not None:
            if node.id == node.root:
                raise CorruptStoreError("root_has_parent", f"root node has parent {node.parent}", where=node.id)
            try:
                node = self.backend.get(node.parent)
            except NotFoundError:
                raise CorruptStoreError("orphan_parent", f"parent {node.parent} is gone", where=node.id) from None
            if node.id in seen:
                raise CorruptStoreError("stored_cycle", f"the chain loops at {node.id}", where=node.id)
            seen.add(node.id)
            chain.append(node)
        chain.reverse()
        return chain


class _Walk(Store):
    """`_ancestry` written again with one of its checks left out (each subclass says which)."""

    checks_root = checks_cycle = checks_missing = True

    def _ancestry(self, node: Node) -> list[Node]:
        chain, seen = [node], {node.id}
        while node.parent is not None:
            if self.checks_root and node.id == node.root:
                raise CorruptStoreError("root_has_parent", f"root node has parent {node.parent}", where=node.id)
            try:
                parent = self.backend.get(node.parent)
            except NotFoundError:
                if not self.checks_missing:
                    break  # the path starts at the gap
                raise CorruptStoreError("orphan_parent", f"parent {node.parent} is gone", where=node.id) from None
            if parent.id in seen:
                if self.checks_cycle:
                    raise CorruptStoreError("stored_cycle", f"the chain loops at {parent.id}", where=parent.id)
                break  # the loop is read as a path that ends where it comes back
            if parent.root != node.root:
                raise CorruptStoreError("broken_path", f"parent {parent.id} is in another conversation", where=node.id)
            seen.add(parent.id)
            chain.append(parent)
            node = parent
        chain.reverse()
        return chain


class RootParentIgnored(_Walk):
    """Walks past a root that has a parent, as if the root's record could not be wrong."""

    checks_root = False


class CycleReadAsPath(_Walk):
    """Stops a looping chain where it comes back and returns what it walked as the path."""

    checks_cycle = False


class PathFromTheGap(_Walk):
    """A missing parent ends the walk: the path starts at the node whose parent is gone."""

    checks_missing = False


class UnreadableNodeSkipped(Store):
    """Indexes a conversation from the node files it can read, skipping one that is not JSON: the
    path through it then reads as a missing parent, and the damaged file is never named."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        backend = self.backend
        if not hasattr(backend, "_scan_once"):
            return

        def scan_once(root: str, gen: int) -> Structure:
            out = Structure(gen, dirty=True)
            records: list[tuple[int, str, str | None]] = []
            for path in sorted((backend.dir / root / NODES).glob("*.json")):
                try:
                    node = parse_node(path, root)
                except CorruptStoreError:
                    continue
                records.append((node.seq, node.id, node.parent))
            for seq, nid, parent in sorted(records):
                out.add(nid, parent, seq)
            return out

        backend._scan_once = scan_once


class WritesIntoCorruption(Store):
    """Writes without reading the chain above the node: an edit in a loop, or below a gap, goes through."""

    def _sound(self, node: Node) -> Node:
        return node


class UnreadableRegistryIsEmpty(Store):
    """Reads an unreadable roots.json as an empty registry."""

    def roots(self) -> list[str]:
        try:
            return super().roots()
        except CorruptStoreError:
            return []


class RootsListedTwice(Store):
    """Lists the registry's entries as they are, a conversation registered twice included."""

    def roots(self) -> list[str]:
        self.backend.refresh()
        return self.backend.roots()


class GenerationAsNode(Store):
    """Reports a bad generation file as a corrupt node."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        generation = getattr(self.backend, "_generation", None)
        if generation is None:
            return

        def misread(root: str) -> int:
            try:
                return int(generation(root))
            except StoreError as exc:
                raise CorruptStoreError("corrupt_node", str(exc), where=exc.where) from None

        self.backend._generation = misread  # type: ignore[method-assign]


class UnregisteredAsMissing(Store):
    """A node of a conversation roots.json does not register is reported as no node at all."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if hasattr(self.backend, "_unregistered"):
            self.backend._unregistered = lambda root, node_id: None  # type: ignore[method-assign]


class ReadsEitherCopy(Store):
    """Reads whichever copy of a node id it indexed last, without a word."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if hasattr(self.backend, "_one_copy"):
            self.backend._one_copy = lambda node_id, root: root  # type: ignore[method-assign]


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


class RepairKeepsFirstCopy(StoreSession):
    """fsck --repair keeps the copy of a duplicated node id in the conversation listed first and sets
    the others aside, whichever copy the tree hangs on."""

    def apply(self, op: dict[str, Any]) -> dict[str, Any]:
        if op.get("op") != "repair":
            return super().apply(op)
        seen: set[str] = set()
        for conv in sorted(p for p in self.directory.iterdir() if p.is_dir() and p.name.startswith("r_")):
            for node_file in sorted((conv / NODES).glob("*.json")):
                if node_file.name in seen:
                    quarantine(self.directory, node_file)
                seen.add(node_file.name)
        return super().apply(op)


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
