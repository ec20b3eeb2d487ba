"""The invariants of one conversation tree, as violations: shared by the directory and SQLite checks."""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.store.errors import StoreError
from conformance.store.model import Node, normalize_message, tool_call_ids


@dataclass(frozen=True)
class Violation:
    kind: str
    where: str
    detail: str = ""

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "where": self.where, "detail": self.detail}


@dataclass
class Conversation:
    root: str
    nodes: dict[str, Node] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    """node id → where it is stored (a file path, or the id itself for SQLite)."""
    bookmarks: dict[str, str] = field(default_factory=dict)
    bookmarks_where: str = ""
    lost: set[str] = field(default_factory=set)
    """Node ids whose file exists but cannot be read (truncated, not a node record, not a regular file)."""


@dataclass
class Report:
    violations: list[Violation] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)


def check_tree(conv: Conversation) -> tuple[list[Violation], set[str]]:
    """Structural and message violations of one conversation, and the nodes that cannot stay in
    the tree (orphans of a parent that never existed, cycles, and everything below them).

    The descendants of an unreadable node (`conv.lost`) are valid data: they are reported, never
    counted among the nodes to move away, and bookmarks on them are not dangling."""
    out: list[Violation] = []
    nodes, where = conv.nodes, conv.files
    root = nodes.get(conv.root)
    if root is None:
        out.append(Violation("missing_root_node", conv.root, "the conversation has no root node"))
    elif root.parent is not None:
        out.append(Violation("root_has_parent", where[root.id], f"root has parent {root.parent}"))
    bad: set[str] = set()
    kept_tops: list[str] = []
    for nid, node in sorted(nodes.items()):
        if nid == conv.root:
            continue
        if node.parent is not None and node.parent in conv.lost:
            out.append(
                Violation(
                    "orphan_parent",
                    where[nid],
                    f"parent {node.parent} is unreadable; this node and its descendants are kept: "
                    "reparent them or move them aside by hand",
                )
            )
            kept_tops.append(nid)
        elif node.parent is not None and node.parent not in nodes:
            out.append(Violation("orphan_parent", where[nid], f"parent {node.parent} does not exist"))
            bad.add(nid)
        elif node.parent is None:
            out.append(Violation("orphan_parent", where[nid], "a non-root node without a parent"))
            bad.add(nid)
    reached = _reachable(conv, [conv.root] if conv.root in nodes else [])
    kept = _reachable(conv, kept_tops) - reached
    for nid in sorted(set(nodes) - reached - kept - bad):
        if _on_cycle(nodes, nid):
            out.append(Violation("stored_cycle", where[nid], "its parent chain loops back to it"))
    bad |= set(nodes) - reached - kept
    for nid in sorted(reached | kept):
        out += _message_violations(conv, nodes[nid])
    for name, target in sorted(conv.bookmarks.items()):
        if target not in reached and target not in kept:
            out.append(Violation("dangling_bookmark", f"{conv.bookmarks_where}#{name}", f"points to {target}"))
    return out, bad


def _reachable(conv: Conversation, tops: list[str]) -> set[str]:
    children: dict[str, list[str]] = {}
    for nid, node in conv.nodes.items():
        if node.parent is not None and nid != conv.root:
            children.setdefault(node.parent, []).append(nid)
    seen, stack = set(tops), list(tops)
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def _on_cycle(nodes: dict[str, Node], start: str) -> bool:
    seen: set[str] = set()
    current: str | None = start
    while current is not None and current in nodes and current not in seen:
        seen.add(current)
        current = nodes[current].parent
    return current == start


def _message_violations(conv: Conversation, node: Node) -> list[Violation]:
    where = conv.files[node.id]
    try:
        message = normalize_message(node.message, where)
    except StoreError as exc:
        return [Violation("invalid_message", where, exc.message)]
    except RecursionError:
        return [Violation("invalid_message", where, "the message is nested too deeply")]
    is_root = node.id == conv.root
    if is_root != (message["role"] == "system"):
        return [Violation("role_sequence", where, "system messages belong at the root, and only there")]
    if message["role"] == "tool_result":
        ancestor = conv.nodes.get(node.parent or "")
        while ancestor is not None and ancestor.role == "tool_result":
            ancestor = conv.nodes.get(ancestor.parent or "")
        if ancestor is None or message["tool_call_id"] not in tool_call_ids(ancestor.message):
            if node.parent in conv.lost:
                return []  # its call may be in the unreadable parent: reported as orphan_parent
            return [Violation("uncorrelated_tool_result", where, f"tool_call_id {message['tool_call_id']!r}")]
    return []


def _standing(conv: Conversation, nid: str, order: int) -> tuple[bool, bool, int]:
    """How surely this copy of `nid` is the original: nodes of its conversation hang below it, its
    parent is in its conversation, its conversation comes first."""
    node = conv.nodes[nid]
    children = any(n.parent == nid for n in conv.nodes.values())
    return (not children, node.parent not in conv.nodes, order)


def duplicate_nodes(conversations: list[Conversation]) -> list[Violation]:
    """A node id stored in two conversations: a reader cannot tell which one a path goes through.
    The copy the tree hangs on (nodes of its conversation below it, its parent beside it) is the
    original; each other copy is reported, so a repair that sets those aside keeps every path."""
    copies: dict[str, list[tuple[tuple[bool, bool, int], Conversation]]] = {}
    for order, conv in enumerate(conversations):
        for nid in conv.nodes:
            if nid != conv.root:
                copies.setdefault(nid, []).append((_standing(conv, nid, order), conv))
    out: list[Violation] = []
    for nid in sorted(copies):
        if len(copies[nid]) < 2:
            continue
        ranked = sorted(copies[nid], key=lambda c: c[0])
        home = ranked[0][1].root
        for _, conv in ranked[1:]:
            out.append(Violation("duplicate_node", conv.files[nid], f"{nid} is also stored in conversation {home}"))
    return out
