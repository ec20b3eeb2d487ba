"""Consistency check and repair of a store on disk.

`fsck(path)` lists every violation with where it is (a file, a root id or a node id); `repair`
rebuilds `roots.json` from the conversation directories and the structure cache from the node
files, moves what cannot be used (unreadable files, orphans, cycles, leftover temp files) into
`quarantine/` and reports each action. Nothing is deleted.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.store import ids
from conformance.store.errors import CorruptStoreError, StoreError
from conformance.store.files import parse_node, read_json
from conformance.store.layout import (
    BOOKMARKS,
    GENERATION,
    INTENT,
    NODES,
    QUARANTINE,
    REGISTRY,
    STRUCTURE,
    TEMP_SUFFIXES,
    IntentError,
    WriteLayer,
    apply_atomically,
    dumps,
    read_intent,
    read_limited,
    recover,
)
from conformance.store.model import Node, normalize_message, tool_call_ids

MAX_FILE_BYTES = 64 << 20
"""The largest store file fsck reads (a node holding a huge tool result fits; /dev/zero does not)."""


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


def check_tree(conv: Conversation) -> tuple[list[Violation], set[str]]:
    """Structural and message violations of one conversation, and the nodes that cannot stay in
    the tree (orphans, cycles and everything below them)."""
    out: list[Violation] = []
    nodes, where = conv.nodes, conv.files
    root = nodes.get(conv.root)
    if root is None:
        out.append(Violation("missing_root_node", conv.root, "the conversation has no root node"))
    elif root.parent is not None:
        out.append(Violation("root_has_parent", where[root.id], f"root has parent {root.parent}"))
    bad: set[str] = set()
    for nid, node in sorted(nodes.items()):
        if nid != conv.root and node.parent is not None and node.parent not in nodes:
            out.append(Violation("orphan_parent", where[nid], f"parent {node.parent} does not exist"))
            bad.add(nid)
        elif nid != conv.root and node.parent is None:
            out.append(Violation("orphan_parent", where[nid], "a non-root node without a parent"))
            bad.add(nid)
    reached = _reachable(conv)
    for nid in sorted(set(nodes) - reached - bad):
        if _on_cycle(nodes, nid):
            out.append(Violation("stored_cycle", where[nid], "its parent chain loops back to it"))
    unreachable = set(nodes) - reached
    bad |= unreachable
    for nid in sorted(reached):
        out += _message_violations(conv, nodes[nid])
    for name, target in sorted(conv.bookmarks.items()):
        if target not in reached:
            out.append(Violation("dangling_bookmark", f"{conv.bookmarks_where}#{name}", f"points to {target}"))
    return out, bad


def _reachable(conv: Conversation) -> set[str]:
    children: dict[str, list[str]] = {}
    for nid, node in conv.nodes.items():
        if node.parent is not None and nid != conv.root:
            children.setdefault(node.parent, []).append(nid)
    if conv.root not in conv.nodes:
        return set()
    seen, stack = {conv.root}, [conv.root]
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
    is_root = node.id == conv.root
    if is_root != (message["role"] == "system"):
        return [Violation("role_sequence", where, "system messages belong at the root, and only there")]
    if message["role"] == "tool_result":
        ancestor = conv.nodes.get(node.parent or "")
        while ancestor is not None and ancestor.role == "tool_result":
            ancestor = conv.nodes.get(ancestor.parent or "")
        if ancestor is None or message["tool_call_id"] not in tool_call_ids(ancestor.message):
            return [Violation("uncorrelated_tool_result", where, f"tool_call_id {message['tool_call_id']!r}")]
    return []


# files -----------------------------------------------------------------------------------------


@dataclass
class Report:
    violations: list[Violation] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)


def fsck_dir(data_dir: Path) -> Report:
    report = Report()
    _scan_dir(data_dir, report)
    return report


def _scan_dir(data_dir: Path, report: Report) -> tuple[list[Conversation], dict[str, list[Path]]]:
    """Read everything, recording violations; returns the readable conversations and, per kind,
    the files repair would move to quarantine."""
    v = report.violations
    movable: dict[str, list[Path]] = {}
    registry: list[str] | None = None
    reg_path = data_dir / REGISTRY
    dirs = sorted(p for p in data_dir.iterdir() if p.is_dir() and p.name != QUARANTINE)
    try:
        data = read_json(reg_path, "corrupt_registry")
        entries = data.get("roots") if isinstance(data, dict) else None
        if not isinstance(entries, list) or not all(isinstance(e, dict) and "id" in e for e in entries):
            v.append(Violation("corrupt_registry", str(reg_path), "expected {version, roots: [{id, created}]}"))
        else:
            registry = [str(e["id"]) for e in entries]
    except FileNotFoundError:
        if dirs:
            v.append(Violation("missing_registry", str(reg_path), "conversation directories exist"))
    except StoreError as exc:
        v.append(
            Violation("corrupt_registry" if exc.kind != "permission" else "unreadable", str(reg_path), exc.message)
        )
    for entry in data_dir.iterdir():
        if entry.is_file() and entry.name.endswith(TEMP_SUFFIXES):
            v.append(Violation("leftover_temp", str(entry), "an interrupted write"))
            movable.setdefault("temp", []).append(entry)
    if registry is not None:
        for rid in registry:
            if not ids.is_root_id(rid):
                v.append(Violation("corrupt_registry", str(reg_path), f"malformed root id {rid!r}"))
            elif not (data_dir / rid).is_dir():
                v.append(Violation("missing_directory", str(data_dir / rid), f"registered root {rid}"))
        for rid in sorted({r for r in registry if registry.count(r) > 1}):
            v.append(Violation("duplicate_root", str(reg_path), f"{rid} is registered twice"))
    conversations: list[Conversation] = []
    for conv_dir in dirs:
        rid = conv_dir.name
        if not ids.is_root_id(rid):
            v.append(Violation("stray_directory", str(conv_dir), "not a conversation directory (r_ + 16 hex)"))
            continue
        if registry is not None and rid not in registry:
            v.append(Violation("unregistered_root", str(conv_dir), "the directory is not in roots.json"))
        conversations.append(_scan_conversation(conv_dir, report, movable))
    return conversations, movable


def _scan_conversation(conv_dir: Path, report: Report, movable: dict[str, list[Path]]) -> Conversation:
    v = report.violations
    conv = Conversation(conv_dir.name)
    nodes_dir = conv_dir / NODES
    files = sorted(nodes_dir.iterdir()) if nodes_dir.is_dir() else []
    for extra in sorted(conv_dir.iterdir()):
        if extra.is_file() and extra.name.endswith(TEMP_SUFFIXES):
            files.append(extra)
    pending = _interrupted(conv_dir, v)
    for path in files:
        if path in pending:
            continue
        if path.name.endswith(TEMP_SUFFIXES):
            v.append(Violation("leftover_temp", str(path), "an interrupted write"))
            movable.setdefault("temp", []).append(path)
            continue
        if path.suffix != ".json" or (ids.NODE_ID.fullmatch(path.stem) is None and path.stem != conv.root):
            v.append(Violation("invalid_node_name", str(path), "not <node id>.json"))
            movable.setdefault("unreadable", []).append(path)
            continue
        try:
            node = parse_node(path, conv.root)
        except StoreError as exc:
            kind = "unreadable" if exc.kind == "permission" else "corrupt_node"
            v.append(Violation(kind, str(path), exc.message))
            movable.setdefault("unreadable", []).append(path)
            continue
        conv.nodes[node.id] = node
        conv.files[node.id] = str(path)
    marks_path = conv_dir / BOOKMARKS
    conv.bookmarks_where = str(marks_path)
    if marks_path.exists():
        try:
            data = read_json(marks_path, "corrupt_bookmarks")
            marks = data.get("bookmarks") if isinstance(data, dict) else None
            if not isinstance(marks, dict):
                raise CorruptStoreError("corrupt_bookmarks", "expected {version, bookmarks}", where=str(marks_path))
            conv.bookmarks = {str(k): str(t) for k, t in marks.items()}
        except StoreError as exc:
            v.append(Violation("corrupt_bookmarks", str(marks_path), exc.message))
            movable.setdefault("unreadable", []).append(marks_path)
    found, bad = check_tree(conv)
    v += found
    movable.setdefault("detached", []).extend(Path(conv.files[n]) for n in sorted(bad))
    _check_cache(conv_dir, conv, v)
    return conv


def _interrupted(conv_dir: Path, v: list[Violation]) -> set[Path]:
    """An operation's intent record left behind: one violation, and the temp and backup files it
    names (they belong to that operation, which repair rolls back, not to quarantine)."""
    intent = conv_dir / INTENT
    if not os.path.lexists(intent):
        return set()
    try:
        entries = read_intent(intent, conv_dir.parent)
    except IntentError as exc:
        v.append(Violation("interrupted_operation", str(intent), f"{exc}: needs a person"))
        return set()
    v.append(Violation("interrupted_operation", str(intent), "an operation was interrupted; --repair rolls it back"))
    return {p for e in entries for p in (e["temp"], e["backup"]) if p is not None}


def _recover_all(data_dir: Path) -> list[str]:
    """Roll back every interrupted operation (before anything else is judged)."""
    actions: list[str] = []
    for conv_dir in sorted(p for p in data_dir.iterdir() if p.is_dir() and ids.is_root_id(p.name)):
        try:
            if recover(conv_dir / INTENT, data_dir):
                actions.append(f"rolled back the interrupted operation recorded in {conv_dir / INTENT}")
        except IntentError:
            continue  # reported by the scan, left for a person
    return actions


def _remove_aborted_creations(data_dir: Path, registry: set[str]) -> list[str]:
    """A conversation directory that holds no file at all and is not registered is a creation that
    never completed: removed (it holds no data)."""
    actions: list[str] = []
    for conv_dir in sorted(p for p in data_dir.iterdir() if p.is_dir() and ids.is_root_id(p.name)):
        if conv_dir.name in registry or conv_dir.is_symlink():
            continue
        if any(p.is_file() and not p.name.endswith(".lock") for p in conv_dir.rglob("*")):
            continue
        shutil.rmtree(conv_dir)
        actions.append(f"removed {conv_dir}: an empty conversation directory whose creation never completed")
    return actions


def _check_cache(conv_dir: Path, conv: Conversation, v: list[Violation]) -> None:
    path = conv_dir / STRUCTURE
    if not path.exists():
        return
    try:
        data = json.loads(path.read_bytes())
        gen = int((conv_dir / GENERATION).read_text().strip() or 0) if (conv_dir / GENERATION).exists() else 0
        if data.get("generation") != gen:
            return  # an outdated cache is ignored by readers: not a violation
        cached = {k: (p, int(s)) for k, (p, s) in data["nodes"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        v.append(Violation("stale_cache", str(path), "unreadable cache with the current generation"))
        return
    actual = {n.id: (n.parent, n.seq) for n in conv.nodes.values()}
    if cached != actual:
        v.append(Violation("stale_cache", str(path), "disagrees with the node files"))


def repair_dir(data_dir: Path, layer: WriteLayer | None = None) -> Report:
    """Repair what can be repaired without losing data; returns the actions and what remains."""
    layer = layer or WriteLayer()
    first = Report()
    actions = _recover_all(data_dir)
    conversations, movable = _scan_dir(data_dir, first)
    for kind in ("temp", "unreadable", "detached"):
        for path in movable.get(kind, []):
            if path.exists():
                actions.append(f"moved {path} to {_quarantine(data_dir, path)}")
    actions += _remove_aborted_creations(data_dir, {c.root for c in conversations if c.root in c.nodes})
    for conv in conversations:
        if (data_dir / conv.root).is_dir():
            actions += _repair_conversation(data_dir / conv.root, conv, layer)
    actions += _rebuild_registry(data_dir, layer)
    report = fsck_dir(data_dir)
    report.actions = actions
    return report


def _repair_conversation(conv_dir: Path, conv: Conversation, layer: WriteLayer) -> list[str]:
    actions: list[str] = []
    nodes = {nid: n for nid, n in conv.nodes.items() if Path(conv.files[nid]).exists()}
    root = nodes.get(conv.root)
    if root is not None and root.parent is not None:
        _quarantine(conv_dir.parent, Path(conv.files[root.id]), copy=True)
        root.parent = None
        layer_write(layer, Path(conv.files[root.id]), dumps(root.to_json()))
        actions.append(f"cleared the parent of root {root.id} (the old file is in quarantine)")
    marks_path = conv_dir / BOOKMARKS
    if marks_path.exists() and conv.bookmarks:
        keep = {k: t for k, t in conv.bookmarks.items() if t in nodes}
        dropped = {k: t for k, t in conv.bookmarks.items() if k not in keep}
        if dropped:
            _quarantine(conv_dir.parent, marks_path, copy=True)
            layer_write(layer, marks_path, dumps({"version": 1, "bookmarks": keep}))
            actions.append(f"removed dangling bookmarks {sorted(dropped)} (the old file is in quarantine)")
    gen = int((conv_dir / GENERATION).read_text().strip() or 0) + 1 if (conv_dir / GENERATION).exists() else 1
    cache = {"generation": gen, "nodes": {n.id: [n.parent, n.seq] for n in nodes.values()}}
    apply_atomically(
        layer, [(conv_dir / GENERATION, str(gen).encode()), (conv_dir / STRUCTURE, dumps(cache))], [], tag="fsck"
    )
    actions.append(f"rebuilt the structure cache of {conv.root} from {len(nodes)} node files")
    return actions


def _rebuild_registry(data_dir: Path, layer: WriteLayer) -> list[str]:
    reg_path = data_dir / REGISTRY
    entries: list[dict[str, Any]] = []
    for conv_dir in sorted(p for p in data_dir.iterdir() if p.is_dir() and ids.is_root_id(p.name)):
        try:
            root = parse_node(conv_dir / NODES / f"{conv_dir.name}.json", conv_dir.name)
        except (StoreError, FileNotFoundError):
            continue  # no readable root node: the directory stays unregistered and is reported
        entries.append({"id": root.id, "created": root.created})
    order = {rid: i for i, rid in enumerate(_registered_order(reg_path))}
    # the registry's own order is kept (it is the creation order readers list); others follow by creation time
    entries.sort(key=lambda e: (order.get(e["id"], len(order)), e["created"], e["id"]))
    new = dumps({"version": 1, "roots": entries})
    try:
        if reg_path.read_bytes() == new:
            return []
    except OSError:
        pass
    if reg_path.exists():
        _quarantine(data_dir, reg_path, copy=True)
    layer_write(layer, reg_path, new)
    return [f"rebuilt {reg_path} from {len(entries)} conversation directories"]


def _registered_order(reg_path: Path) -> list[str]:
    try:
        data = json.loads(read_limited(reg_path, MAX_FILE_BYTES))
        return [str(e["id"]) for e in data["roots"] if isinstance(e, dict)]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def layer_write(layer: WriteLayer, path: Path, data: bytes) -> None:
    apply_atomically(layer, [(path, data)], [], tag="fsck")


def _quarantine(data_dir: Path, path: Path, *, copy: bool = False) -> Path:
    rel = path.resolve().relative_to(data_dir.resolve())
    dest = data_dir / QUARANTINE / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    while dest.exists():
        n += 1
        dest = dest.with_name(f"{rel.name}.{n}")
    if copy:
        shutil.copy2(path, dest)
    else:
        os.replace(path, dest)
    return dest


# sqlite ----------------------------------------------------------------------------------------


def fsck_sqlite(path: Path) -> Report:
    report = Report()
    v = report.violations
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            problems = [r[0] for r in db.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                v += [Violation("corrupt_database", str(path), p) for p in problems]
                return report
            for table, rowid, parent, _ in db.execute("PRAGMA foreign_key_check"):
                v.append(Violation("foreign_key", f"{table}#{rowid}", f"references a missing {parent} row"))
            registered = [r[0] for r in db.execute("SELECT id FROM roots ORDER BY seq")]
            rows = db.execute("SELECT id, root, parent, seq, message, source_info, created, updated FROM nodes")
            convs = {rid: Conversation(rid) for rid in registered}
            for nid, root, parent, seq, message, source, created, updated in rows:
                conv = convs.setdefault(root, Conversation(root))
                try:
                    node = Node(nid, root, parent, seq, json.loads(message), json.loads(source), created, updated)
                except ValueError as exc:
                    v.append(Violation("corrupt_node", nid, f"invalid JSON ({exc})"))
                    continue
                conv.nodes[nid] = node
                conv.files[nid] = nid
            for rid, name, node_id in db.execute("SELECT root, name, node FROM bookmarks"):
                conv = convs.setdefault(rid, Conversation(rid))
                conv.bookmarks[name] = node_id
                conv.bookmarks_where = rid
            for rid, conv in sorted(convs.items()):
                if rid not in registered:
                    v.append(Violation("unregistered_root", rid, "nodes of a root that is not in the roots table"))
                v += check_tree(conv)[0]
        finally:
            db.close()
    except sqlite3.Error as exc:
        v.append(Violation("corrupt_database", str(path), str(exc)))
    return report


def fsck_path(path: Path) -> Report:
    """A data directory (file backend) or a database file (SQLite backend)."""
    return fsck_sqlite(path) if path.is_file() else fsck_dir(path)


__all__ = ["Report", "Violation", "check_tree", "fsck_dir", "fsck_path", "fsck_sqlite", "repair_dir"]
