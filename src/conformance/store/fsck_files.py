"""fsck of a data directory (files backend): read everything, never outside the store.

Nothing is followed or trusted: a symbolic link inside the store is a violation and is never read
through; every file is opened without following links, without blocking (a FIFO), and read only
up to `MAX_FILE_BYTES`; JSON nested too deeply is a corrupt file, not a crash."""

from __future__ import annotations

import errno
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.store import ids
from conformance.store.checks import Conversation, Report, Violation, check_tree, duplicate_nodes
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
    read_intent,
    read_limited,
)
from conformance.store.model import Node

MAX_FILE_BYTES = 64 << 20
"""The largest store file fsck reads (a node holding a large tool result fits; /dev/zero does not)."""


class Unreadable(Exception):
    """A store file fsck will not or cannot use: `kind` is the violation, `detail` says why."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind, self.detail = kind, detail


def load_json(path: Path, kind: str) -> Any:
    """A store file's JSON; `Unreadable` naming the violation otherwise (FileNotFoundError passes)."""
    try:
        raw = read_limited(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _unreadable(exc) from None
    try:
        return json.loads(raw)
    except RecursionError:
        raise Unreadable(kind, "nested too deeply to read") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Unreadable(kind, f"not valid JSON ({exc})") from None


def _unreadable(exc: OSError) -> Unreadable:
    if exc.errno == errno.ELOOP:
        return Unreadable("symlink", "a symbolic link: fsck never follows it")
    if exc.errno == errno.EFBIG:
        return Unreadable("oversized", f"larger than {MAX_FILE_BYTES} bytes")
    if exc.errno == errno.EINVAL:
        return Unreadable("not_a_file", "not a regular file (a FIFO, socket or device)")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return Unreadable("unreadable", f"permission denied ({exc.strerror})")
    return Unreadable("unreadable", f"{exc.strerror or exc}")


def load_node(path: Path, root: str) -> Node:
    """A node file, checked against its name and directory; `Unreadable` otherwise."""
    data = load_json(path, "corrupt_node")
    try:
        node = Node.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise Unreadable("corrupt_node", f"not a node record ({type(exc).__name__})") from None
    if node.id != path.stem or node.root != root:
        raise Unreadable("corrupt_node", f"record says id {node.id} in {node.root}, the file says {path.stem}")
    return node


def read_generation(conv_dir: Path) -> int | None:
    """The conversation's generation; 0 when absent, None when it is not an integer (or unreadable)."""
    try:
        text = read_limited(conv_dir / GENERATION, 64).decode("ascii").strip()
    except FileNotFoundError:
        return 0
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else (0 if not text else None)


def entries(directory: Path) -> list[os.DirEntry[str]]:
    with os.scandir(directory) as it:
        return sorted(it, key=lambda e: e.name)


@dataclass
class Scan:
    """What a directory scan found: the readable conversations and, per kind, what repair moves."""

    conversations: list[Conversation] = field(default_factory=list)
    movable: dict[str, list[Path]] = field(default_factory=dict)

    def move(self, kind: str, path: Path) -> None:
        self.movable.setdefault(kind, []).append(path)


def fsck_dir(data_dir: Path) -> Report:
    """Every violation of a data directory, with where it is."""
    report = Report()
    scan_dir(data_dir, report)
    return report


def scan_dir(data_dir: Path, report: Report) -> Scan:
    """Read everything, recording violations in `report`."""
    v = report.violations
    scan = Scan()
    conv_dirs: list[Path] = []
    for entry in entries(data_dir):
        path = Path(entry.path)
        if entry.is_symlink():
            v.append(Violation("symlink", str(path), "a symbolic link inside the store: never followed"))
            scan.move("unreadable", path)
        elif entry.is_dir(follow_symlinks=False):
            if entry.name != QUARANTINE:
                conv_dirs.append(path)
        elif not entry.is_file(follow_symlinks=False):
            v.append(Violation("not_a_file", str(path), "a FIFO, socket or device inside the store"))
        elif entry.name.endswith(TEMP_SUFFIXES):
            v.append(Violation("leftover_temp", str(path), "an interrupted write"))
            scan.move("temp", path)
    registry = _registry(data_dir, conv_dirs, v)
    for conv_dir in conv_dirs:
        rid = conv_dir.name
        if not ids.is_root_id(rid):
            v.append(Violation("stray_directory", str(conv_dir), "not a conversation directory (r_ + 16 hex)"))
            continue
        if registry is not None and rid not in registry:
            v.append(Violation("unregistered_root", str(conv_dir), "the directory is not in roots.json"))
        scan.conversations.append(_scan_conversation(conv_dir, v, scan))
    v += duplicate_nodes(scan.conversations)
    return scan


def _registry(data_dir: Path, conv_dirs: list[Path], v: list[Violation]) -> list[str] | None:
    reg_path = data_dir / REGISTRY
    if reg_path.is_symlink():
        return None  # reported as a link
    try:
        data = load_json(reg_path, "corrupt_registry")
    except FileNotFoundError:
        if conv_dirs:
            v.append(Violation("missing_registry", str(reg_path), "conversation directories exist"))
        return None
    except Unreadable as exc:
        v.append(
            Violation("corrupt_registry" if exc.kind == "corrupt_registry" else exc.kind, str(reg_path), exc.detail)
        )
        return None
    entries_ = data.get("roots") if isinstance(data, dict) else None
    if not isinstance(entries_, list) or not all(isinstance(e, dict) and "id" in e for e in entries_):
        v.append(Violation("corrupt_registry", str(reg_path), "expected {version, roots: [{id, created}]}"))
        return None
    registry = [str(e["id"]) for e in entries_]
    for rid in registry:
        if not ids.is_root_id(rid):
            v.append(Violation("corrupt_registry", str(reg_path), f"malformed root id {rid!r}"))
        elif not (data_dir / rid).is_dir() or (data_dir / rid).is_symlink():
            v.append(Violation("missing_directory", str(data_dir / rid), f"registered root {rid}"))
    for rid in sorted({r for r in registry if registry.count(r) > 1}):
        v.append(Violation("duplicate_root", str(reg_path), f"{rid} is registered twice"))
    return registry


def _scan_conversation(conv_dir: Path, v: list[Violation], scan: Scan) -> Conversation:
    conv = Conversation(conv_dir.name, lost=_quarantined_nodes(conv_dir))
    pending = interrupted(conv_dir, v, scan)
    node_files = _node_files(conv_dir, v, scan)
    for entry in entries(conv_dir):
        path = Path(entry.path)
        if path in pending or entry.name == NODES:
            continue
        if entry.is_symlink():
            v.append(Violation("symlink", str(path), "a symbolic link inside the store: never followed"))
            scan.move("unreadable", path)
        elif entry.is_file(follow_symlinks=False) and entry.name.endswith(TEMP_SUFFIXES):
            v.append(Violation("leftover_temp", str(path), "an interrupted write"))
            scan.move("temp", path)
    for path in node_files:
        if path in pending:
            continue
        _scan_node(conv, path, v, scan)
    _scan_bookmarks(conv, conv_dir / BOOKMARKS, v, scan)
    found, bad = check_tree(conv)
    v += found
    for nid in sorted(bad):
        scan.move("detached", Path(conv.files[nid]))
    _check_cache(conv_dir, conv, v)
    return conv


def _quarantined_nodes(conv_dir: Path) -> set[str]:
    """Node ids of this conversation whose unreadable file repair moved to quarantine (their
    descendants are kept, not detached)."""
    where = conv_dir.parent / QUARANTINE / conv_dir.name / NODES
    if any(p.is_symlink() for p in (where.parents[2], where.parents[1], where.parent, where)) or not where.is_dir():
        return set()
    return {e.name.split(".json")[0] for e in entries(where) if ".json" in e.name}


def _node_files(conv_dir: Path, v: list[Violation], scan: Scan) -> list[Path]:
    nodes_dir = conv_dir / NODES
    if nodes_dir.is_symlink():
        v.append(Violation("symlink", str(nodes_dir), "a symbolic link inside the store: never followed"))
        scan.move("unreadable", nodes_dir)
        return []
    if not nodes_dir.is_dir():
        return []
    return [Path(e.path) for e in entries(nodes_dir)]


def _scan_node(conv: Conversation, path: Path, v: list[Violation], scan: Scan) -> None:
    if path.name.endswith(TEMP_SUFFIXES) and not path.is_symlink():
        v.append(Violation("leftover_temp", str(path), "an interrupted write"))
        scan.move("temp", path)
        return
    named = path.suffix == ".json" and (ids.NODE_ID.fullmatch(path.stem) is not None or path.stem == conv.root)
    if not named:
        v.append(Violation("invalid_node_name", str(path), "not <node id>.json"))
        scan.move("unreadable", path)
        return
    try:
        node = load_node(path, conv.root)
    except Unreadable as exc:
        v.append(Violation(exc.kind, str(path), exc.detail))
        scan.move("unreadable", path)
        conv.lost.add(path.stem)
        return
    conv.nodes[node.id] = node
    conv.files[node.id] = str(path)


def _scan_bookmarks(conv: Conversation, path: Path, v: list[Violation], scan: Scan) -> None:
    conv.bookmarks_where = str(path)
    if not os.path.lexists(path):
        return
    try:
        data = load_json(path, "corrupt_bookmarks")
    except (Unreadable, FileNotFoundError) as exc:
        kind, detail = (exc.kind, exc.detail) if isinstance(exc, Unreadable) else ("corrupt_bookmarks", "gone")
        v.append(Violation(kind, str(path), detail))
        scan.move("unreadable", path)
        return
    marks = data.get("bookmarks") if isinstance(data, dict) else None
    if not isinstance(marks, dict):
        v.append(Violation("corrupt_bookmarks", str(path), "expected {version, bookmarks: {name: node}}"))
        scan.move("unreadable", path)
        return
    conv.bookmarks = {str(k): str(t) for k, t in marks.items()}


def interrupted(conv_dir: Path, v: list[Violation], scan: Scan) -> set[Path]:
    """An operation's intent record left behind: one violation, and the temp and backup files it
    names (they belong to that operation, which repair rolls back, not to quarantine)."""
    intent = conv_dir / INTENT
    if not os.path.lexists(intent):
        return set()
    try:
        found = read_intent(intent, conv_dir.parent)
    except IntentError as exc:
        v.append(Violation("interrupted_operation", str(intent), f"{exc}: cannot be rolled back"))
        scan.move("unreadable", intent)
        return {intent}
    v.append(Violation("interrupted_operation", str(intent), "an operation was interrupted; --repair rolls it back"))
    return {intent} | {p for e in found for p in (e["temp"], e["backup"]) if p is not None}


def _check_cache(conv_dir: Path, conv: Conversation, v: list[Violation]) -> None:
    gen = read_generation(conv_dir)
    if gen is None:
        v.append(Violation("corrupt_generation", str(conv_dir / GENERATION), "not an integer"))
        return
    path = conv_dir / STRUCTURE
    if not os.path.lexists(path) or path.is_symlink():
        return
    try:
        data = load_json(path, "stale_cache")
        if data.get("generation") != gen:
            return  # an outdated cache is ignored by readers: not a violation
        cached = {k: (p, int(s)) for k, (p, s) in data["nodes"].items()}
    except (Unreadable, FileNotFoundError, ValueError, KeyError, TypeError, AttributeError):
        v.append(Violation("stale_cache", str(path), "unreadable cache with the current generation"))
        return
    actual = {n.id: (n.parent, n.seq) for n in conv.nodes.values()}
    if cached != actual:
        v.append(Violation("stale_cache", str(path), "disagrees with the node files"))
