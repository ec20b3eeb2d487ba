"""The conversation-tree store: every operation, validated first, then written in one transaction.

A failed operation raises a typed `StoreError` before anything is written, or its transaction is
rolled back, so the store is exactly as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from conformance.store import ids
from conformance.store.backend import Backend
from conformance.store.engine import coalesce
from conformance.store.errors import (
    BadArgumentError,
    CorruptStoreError,
    CycleError,
    DepthLimitError,
    InvalidMessageError,
    NotFoundError,
    RootProtectedError,
    StoreError,
)
from conformance.store.model import (
    SOURCE_APPEND,
    SOURCE_SYSTEM,
    SOURCE_USER,
    Node,
    normalize_message,
    split_content,
    tool_call_ids,
    with_content,
)

DEFAULT_MAX_DEPTH = 10_000


class Store:
    """One interface over any backend. `clock` gives timestamps, `id_factory` fresh ids."""

    def __init__(
        self,
        backend: Backend,
        *,
        id_factory: ids.IdFactory | None = None,
        clock: Callable[[], float] = time.time,
        max_depth: int = DEFAULT_MAX_DEPTH,
    ) -> None:
        self.backend = backend
        self.ids = id_factory or ids.IdFactory()
        self.clock = clock
        self.max_depth = max_depth

    def close(self) -> None:
        self.backend.close()

    # reads -----------------------------------------------------------------------------------

    def roots(self) -> list[str]:
        """Each registered conversation once, in registry order (a registry naming one twice is
        corrupt, and fsck says so: duplicate_root; it is never listed twice)."""
        self.backend.refresh()
        return list(dict.fromkeys(self.backend.roots()))

    def get(self, node_id: Any) -> Node:
        self.backend.refresh()
        nid = ids.node_id(node_id)
        with self.backend.reading(self.backend.root_of(nid)):
            return self.backend.get(nid)

    def children(self, node_id: Any) -> list[str]:
        self.backend.refresh()
        nid = ids.node_id(node_id)
        with self.backend.reading(self.backend.root_of(nid)):
            self.backend.get(nid)
            return self.backend.children(nid)

    def ancestry(self, node_id: Any) -> list[Node]:
        """Root → node, O(depth). A missing parent, a cycle or a parented root is a loud error."""
        self.backend.refresh()
        nid = ids.node_id(node_id)
        with self.backend.reading(self.backend.root_of(nid)):
            return self._ancestry(self.backend.get(nid))

    def _ancestry(self, node: Node) -> list[Node]:
        chain = [node]
        seen = {node.id}
        while node.parent is not None:
            if node.id == node.root:
                raise CorruptStoreError("root_has_parent", f"root node has parent {node.parent}", where=node.id)
            try:
                parent = self.backend.get(node.parent)
            except NotFoundError:
                raise CorruptStoreError(
                    "orphan_parent", f"parent {node.parent} of node {node.id} does not exist", where=node.id
                ) from None
            if parent.id in seen:
                raise CorruptStoreError("stored_cycle", f"the parent chain loops at {parent.id}", where=parent.id)
            if parent.root != node.root:
                raise CorruptStoreError(
                    "broken_path", f"parent {parent.id} belongs to another conversation", where=node.id
                )
            seen.add(parent.id)
            chain.append(parent)
            node = parent
        if node.id != node.root:
            raise CorruptStoreError("broken_path", f"the chain ends at {node.id}, not at its root", where=node.id)
        chain.reverse()
        return chain

    def _sound(self, node: Node) -> Node:
        """`node`, once its whole chain to the root reads as sound: a write into a corrupted part of
        the tree (a parented root, a stored cycle, a missing parent, an unreadable node on the way
        up) is refused with the error a read of that path gives, before anything is written."""
        self._ancestry(node)
        return node

    def path(self, node_id: Any, *, coalesce_messages: bool = False) -> list[dict[str, Any]]:
        """The message list a provider request is built from: system, then each turn to the node."""
        messages = [n.message for n in self.ancestry(node_id)]
        return coalesce(messages) if coalesce_messages else messages

    def subtree(self, node_id: str) -> list[str]:
        """The node and every descendant, depth first in creation order."""
        out: list[str] = []
        seen: set[str] = set()
        stack = [node_id]
        while stack:
            current = stack.pop()
            if current in seen:  # a stored cycle: the walk would never end
                raise CorruptStoreError("stored_cycle", f"{current} is its own descendant", where=current)
            seen.add(current)
            out.append(current)
            stack.extend(reversed(self.backend.children(current)))
        return out

    def height(self, node_id: str) -> int:
        best, stack, seen = 0, [(node_id, 0)], set()
        while stack:
            current, h = stack.pop()
            if current in seen:  # a stored cycle: the walk would never end
                raise CorruptStoreError("stored_cycle", f"{current} is its own descendant", where=current)
            seen.add(current)
            best = max(best, h)
            stack.extend((c, h + 1) for c in self.backend.children(current))
        return best

    def bookmarks(self, root: Any) -> dict[str, str]:
        self.backend.refresh()
        rid = self._root(root)
        with self.backend.reading(rid):
            return dict(self.backend.bookmarks(rid))

    def resolve(self, root: Any, name: Any) -> str:
        self.backend.refresh()
        marks = self.bookmarks(root)
        label = ids.bookmark_name(name)
        if label not in marks:
            raise NotFoundError("missing_bookmark", f"no bookmark {label!r} in {root}", where=label)
        return self.get(marks[label]).id  # a dangling bookmark is a loud missing_node, never a name for nothing

    # writes ----------------------------------------------------------------------------------

    def create_root(self, system: Any) -> str:
        self.backend.refresh()
        if isinstance(system, str):
            system = {"role": "system", "content": system}
        message = normalize_message(system, where="system")
        if message["role"] != "system":
            raise InvalidMessageError("role_sequence", "a root holds the system message", where="system")
        rid = self.ids.root()
        now = self.clock()
        node = Node(rid, rid, None, 0, message, dict(SOURCE_SYSTEM), now, now)
        with self.backend.transaction(rid) as tx:
            tx.new_root = rid
            tx.put[rid] = node
        return rid

    def append(self, parent: Any, message: Any, source_info: dict[str, Any] | None = None) -> str:
        self.backend.refresh()
        root = self.get(parent).root
        msg = normalize_message(message, where=str(parent))
        if source_info is not None and not isinstance(source_info, dict):
            raise BadArgumentError("source_info must be an object", where="source_info")
        with self.backend.transaction(root) as tx:
            parent_node = self._sound(self.get(parent))
            self._check_placement(msg, parent_node, where=parent_node.id)
            nid = self.ids.node()
            depth = self.depth(parent_node.id) + 1
            if depth > self.max_depth:
                raise DepthLimitError(f"depth {depth} exceeds the limit {self.max_depth}", where=parent_node.id)
            now = self.clock()
            seq = self.backend.next_seq(root)
            source = dict(source_info or SOURCE_APPEND)
            tx.put[nid] = Node(nid, root, parent_node.id, seq, msg, source, now, now)
        return nid

    def edit(self, node_id: Any, content: Any) -> tuple[str, bool]:
        """In place on a leaf (source_info becomes {type: user}); a new sibling branch when the
        node has children. Returns (the id holding the new content, whether it branched)."""
        self.backend.refresh()
        with self.backend.transaction(self.get(node_id).root) as tx:
            node = self._sound(self.get(node_id))
            if node.parent is None:
                raise RootProtectedError("the root and its system message cannot be edited", where=node.id)
            message = with_content(node.message, content, where=node.id)
            if message == node.message:
                return node.id, False
            self._check_placement(message, self.backend.get(node.parent), where=node.id)
            now = self.clock()
            if not self.backend.children(node.id):
                tx.put[node.id] = Node(
                    node.id, node.root, node.parent, node.seq, message, dict(SOURCE_USER), node.created, now
                )
                return node.id, False
            nid = self.ids.node()
            seq = self.backend.next_seq(node.root)
            tx.put[nid] = Node(nid, node.root, node.parent, seq, message, dict(SOURCE_USER), now, now)
            return nid, True

    def split(self, node_id: Any, block: Any, offset: Any = None) -> str:
        """Cut a node's message in two: a new node takes the head and is inserted above the node,
        which keeps the tail, its children and its bookmarks. Returns the head's id."""
        self.backend.refresh()
        with self.backend.transaction(self.get(node_id).root) as tx:
            node = self._sound(self.get(node_id))
            if node.parent is None:
                raise RootProtectedError("the root's system message cannot be split", where=node.id)
            head, tail = split_content(node.message, block, offset, where=node.id)
            if self.depth(node.id) + self.height(node.id) + 1 > self.max_depth:
                raise DepthLimitError(f"a split would exceed the depth limit {self.max_depth}", where=node.id)
            now = self.clock()
            hid = self.ids.node()
            seq = self.backend.next_seq(node.root)
            tx.put[hid] = Node(hid, node.root, node.parent, seq, head, dict(node.source_info), now, now)
            tx.put[node.id] = Node(node.id, node.root, hid, node.seq, tail, node.source_info, node.created, now)
        return hid

    def delete(self, node_id: Any) -> dict[str, Any]:
        """Remove the node and its descendants. Bookmarks inside move to the deleted node's parent,
        or are removed when that parent is the root (a bookmark on the bare system prompt marks
        no conversation)."""
        self.backend.refresh()
        with self.backend.transaction(self.get(node_id).root) as tx:
            node = self._sound(self.get(node_id))
            if node.parent is None:
                raise RootProtectedError("a root cannot be deleted", where=node.id)
            doomed = self.subtree(node.id)
            gone = set(doomed)
            moved: dict[str, str] = {}
            removed: list[str] = []
            kept: dict[str, str] = {}
            for name, target in self.backend.bookmarks(node.root).items():
                if target not in gone:
                    kept[name] = target
                elif node.parent == node.root:
                    removed.append(name)
                else:
                    kept[name] = moved[name] = node.parent
            tx.delete.extend(self.backend.get(n) for n in doomed)
            if moved or removed:
                tx.bookmarks[node.root] = kept
        return {"deleted": doomed, "bookmarks_moved": moved, "bookmarks_removed": sorted(removed)}

    def reparent(self, node_id: Any, new_parent: Any) -> None:
        self.backend.refresh()
        with self.backend.transaction(self.get(node_id).root) as tx:
            node = self._sound(self.get(node_id))
            if node.parent is None:
                raise RootProtectedError("a root cannot be given a parent", where=node.id)
            target = self._sound(self.get(new_parent))
            if target.root != node.root:
                raise StoreError(
                    "invalid_target", f"{target.id} belongs to another conversation ({target.root})", where=node.id
                )
            chain = self._parents(target.id)
            if node.id in chain:
                raise CycleError(f"{target.id} is {node.id} or one of its descendants", where=node.id)
            if target.id == node.parent:
                return
            depth = len(chain) + self.height(node.id)
            if depth > self.max_depth:
                raise DepthLimitError(f"the move would reach depth {depth} > {self.max_depth}", where=node.id)
            self._check_placement(node.message, target, where=node.id)
            for child in self._result_chain(node):
                self._check_placement(self.backend.get(child).message, target, where=child)
            tx.put[node.id] = Node(
                node.id, node.root, target.id, node.seq, node.message, node.source_info, node.created, self.clock()
            )

    def add_bookmark(self, root: Any, name: Any, node_id: Any) -> None:
        self.backend.refresh()
        rid = self._root(root)
        label = ids.bookmark_name(name)
        with self.backend.transaction(rid) as tx:
            node = self._sound(self.get(node_id))
            if node.root != rid:
                raise StoreError("invalid_target", f"{node.id} is not in conversation {rid}", where=node.id)
            tx.bookmarks[rid] = {**self.backend.bookmarks(rid), label: node.id}

    def remove_bookmark(self, root: Any, name: Any) -> None:
        self.backend.refresh()
        rid = self._root(root)
        label = ids.bookmark_name(name)
        with self.backend.transaction(rid) as tx:
            marks = dict(self.backend.bookmarks(rid))
            if marks.pop(label, None) is None:
                raise NotFoundError("missing_bookmark", f"no bookmark {label!r} in {rid}", where=label)
            tx.bookmarks[rid] = marks

    # rules -----------------------------------------------------------------------------------

    def _root(self, root: Any) -> str:
        rid = ids.root_id(root)
        if rid not in self.backend.roots():
            raise NotFoundError("missing_root", f"no conversation {rid}", where=rid)
        return rid

    def _parents(self, node_id: str) -> list[str]:
        """node, parent, …, root by the backend's parent index; a loop or a gap is a loud error."""
        out = [node_id]
        seen = {node_id}
        current: str | None = self.backend.parent_of(node_id)
        while current is not None:
            if current in seen:
                raise CorruptStoreError("stored_cycle", f"the parent chain loops at {current}", where=current)
            seen.add(current)
            out.append(current)
            try:
                current = self.backend.parent_of(current)
            except NotFoundError:
                raise CorruptStoreError(
                    "orphan_parent", f"parent {current} of node {out[-2]} does not exist", where=out[-2]
                ) from None
        if not ids.is_root_id(out[-1]):
            raise CorruptStoreError("broken_path", f"the chain from {node_id} ends at {out[-1]}", where=out[-1])
        return out

    def depth(self, node_id: str) -> int:
        """Edges from the root: O(depth) lookups in the parent index."""
        return len(self._parents(node_id)) - 1

    def _result_chain(self, node: Node) -> Iterator[str]:
        """Tool results directly below `node` (through tool results): they answer the same turn."""
        if node.role != "tool_result":
            return
        stack = list(self.backend.children(node.id))
        while stack:
            child = stack.pop()
            if self.backend.get(child).role == "tool_result":
                yield child
                stack.extend(self.backend.children(child))

    def _check_placement(self, message: dict[str, Any], parent: Node, *, where: str) -> None:
        """System only at a root; a tool result answers a call of the nearest assistant above it."""
        role = message["role"]
        if role == "system":
            raise InvalidMessageError("role_sequence", "a system message belongs only at a root", where=where)
        if role != "tool_result":
            return
        ancestor: Node | None = parent
        seen: set[str] = set()
        while ancestor is not None and ancestor.role == "tool_result" and ancestor.id not in seen:
            seen.add(ancestor.id)
            ancestor = self.backend.get(ancestor.parent) if ancestor.parent else None
        if ancestor is not None and message["tool_call_id"] in tool_call_ids(ancestor.message):
            return
        raise InvalidMessageError(
            "uncorrelated_tool_result",
            f"tool_call_id {message['tool_call_id']!r} answers no tool call of the assistant turn above",
            where=where,
        )


def tree_json(store: Store) -> dict[str, Any]:
    """The whole store as normalized JSON (no timestamps): roots, nodes by creation, bookmarks."""
    nodes: list[dict[str, Any]] = []
    bookmarks: list[dict[str, str]] = []
    roots = store.roots()
    for rid in roots:
        with store.backend.reading(rid):  # one consistent view of each conversation
            for nid in store.subtree(rid):
                n = store.backend.get(nid)
                nodes.append({"id": n.id, "parent": n.parent, "message": n.message, "source_info": n.source_info})
            marks = sorted(store.backend.bookmarks(rid).items())
        bookmarks += [{"root": rid, "name": k, "node": v} for k, v in marks]
    return {"roots": roots, "nodes": nodes, "bookmarks": bookmarks}
