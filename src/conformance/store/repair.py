"""`fsck --repair` of a data directory: what can be mended without losing data, and nothing outside it.

Order: interrupted operations are rolled back first (their intent records); then unreadable files,
links, leftover temps and detached nodes move to `quarantine/` (links are moved as links, never
followed); a conversation whose root node is unreadable moves to quarantine whole; an empty
conversation directory whose creation never completed is removed; the structure caches and
`roots.json` are rebuilt. The descendants of an unreadable node stay where they are and stay
reported: they need a person (reparent them, or move them aside)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from conformance.store import ids
from conformance.store.checks import Conversation, Report, duplicate_nodes
from conformance.store.errors import StoreIOError
from conformance.store.fsck_files import (
    MAX_FILE_BYTES,
    Unreadable,
    entries,
    fsck_dir,
    load_node,
    read_generation,
    scan_dir,
)
from conformance.store.layout import (
    BOOKMARKS,
    GENERATION,
    INTENT,
    NODES,
    QUARANTINE,
    REGISTRY,
    STRUCTURE,
    IntentError,
    WriteLayer,
    apply_atomically,
    dumps,
    read_limited,
    recover,
)


def repair_dir(data_dir: Path, layer: WriteLayer | None = None) -> Report:
    """Repair what can be repaired without losing data; returns the actions and what remains."""
    layer = layer or WriteLayer()
    _refuse_unsafe_quarantine(data_dir)
    actions = _recover_all(data_dir)
    scan = scan_dir(data_dir, Report())
    unusable = {c.root for c in scan.conversations if c.root not in c.nodes}
    """Conversations without a readable root node: moved whole (or removed when they hold nothing)."""
    for kind in ("temp", "unreadable", "detached"):
        for path in scan.movable.get(kind, []):
            inside = Path(os.path.relpath(path, data_dir)).parts[0]
            if inside not in unusable and os.path.lexists(path):
                actions.append(f"moved {path} to {quarantine(data_dir, path)}")
    usable = [c for c in scan.conversations if c.root not in unusable]
    for stray in duplicate_nodes(usable):  # the copies the tree does not hang on: the original stays
        if os.path.lexists(stray.where):
            actions.append(f"moved {stray.where} to {quarantine(data_dir, Path(stray.where))}: {stray.detail}")
    actions += _remove_aborted_creations(data_dir, {c.root for c in usable})
    for rid in sorted(unusable):
        conv_dir = data_dir / rid
        if os.path.lexists(conv_dir):
            dest = quarantine(data_dir, conv_dir)
            actions.append(f"moved conversation {rid} to {dest}: it has no readable root node")
    actions += _remove_aborted_creations(data_dir, {c.root for c in usable})
    for conv in usable:
        actions += _repair_conversation(data_dir / conv.root, conv, layer)
    actions += _rebuild_registry(data_dir, layer)
    report = fsck_dir(data_dir)
    report.actions = actions
    return report


def _refuse_unsafe_quarantine(data_dir: Path) -> None:
    q = data_dir / QUARANTINE
    if q.is_symlink() or (os.path.lexists(q) and not q.is_dir()):
        raise StoreIOError(
            "quarantine/ is not a directory of the store: repair writes nothing outside it", where=str(q)
        )


def _recover_all(data_dir: Path) -> list[str]:
    """Roll back every interrupted operation (before anything else is judged)."""
    actions: list[str] = []
    for entry in entries(data_dir):
        if entry.is_symlink() or not entry.is_dir(follow_symlinks=False) or not ids.is_root_id(entry.name):
            continue
        intent = Path(entry.path) / INTENT
        try:
            if recover(intent, data_dir):
                actions.append(f"rolled back the interrupted operation recorded in {intent}")
        except (IntentError, OSError):
            continue  # reported by the scan; its record goes to quarantine
    return actions


def _remove_aborted_creations(data_dir: Path, usable: set[str]) -> list[str]:
    """An unregistered conversation directory holding no file at all is a creation that never
    completed: removed (it holds no data)."""
    actions: list[str] = []
    for entry in entries(data_dir):
        path = Path(entry.path)
        if entry.is_symlink() or not entry.is_dir(follow_symlinks=False) or not ids.is_root_id(entry.name):
            continue
        if entry.name in usable or _holds_anything(path):
            continue
        shutil.rmtree(path)
        actions.append(f"removed {path}: an empty conversation directory whose creation never completed")
    return actions


def _holds_anything(directory: Path) -> bool:
    for _, dirs, files in os.walk(directory, followlinks=False):
        if any(not f.endswith(".lock") for f in files) or any(os.path.islink(os.path.join(_, d)) for d in dirs):
            return True
    return False


def _repair_conversation(conv_dir: Path, conv: Conversation, layer: WriteLayer) -> list[str]:
    actions: list[str] = []
    nodes = {nid: n for nid, n in conv.nodes.items() if os.path.lexists(conv.files[nid])}
    root = nodes.get(conv.root)
    if root is not None and root.parent is not None:
        quarantine(conv_dir.parent, Path(conv.files[root.id]), copy=True)
        root.parent = None
        layer_write(layer, Path(conv.files[root.id]), dumps(root.to_json()))
        actions.append(f"cleared the parent of root {root.id} (the old file is in quarantine)")
    marks_path = conv_dir / BOOKMARKS
    if os.path.lexists(marks_path) and conv.bookmarks:
        keep = {k: t for k, t in conv.bookmarks.items() if t in nodes}
        dropped = sorted(k for k in conv.bookmarks if k not in keep)
        if dropped:
            quarantine(conv_dir.parent, marks_path, copy=True)
            layer_write(layer, marks_path, dumps({"version": 1, "bookmarks": keep}))
            actions.append(f"removed dangling bookmarks {dropped} (the old file is in quarantine)")
    gen = read_generation(conv_dir)
    if gen is None:
        quarantine(conv_dir.parent, conv_dir / GENERATION, copy=True)
        actions.append(
            f"replaced the generation of {conv.root}, which was not an integer (the old file is in quarantine)"
        )
    gen = (gen or 0) + 1
    cache = {"generation": gen, "nodes": {n.id: [n.parent, n.seq] for n in nodes.values()}}
    apply_atomically(
        layer, [(conv_dir / GENERATION, str(gen).encode()), (conv_dir / STRUCTURE, dumps(cache))], [], tag="fsck"
    )
    actions.append(f"rebuilt the structure cache of {conv.root} from {len(nodes)} node files")
    return actions


def _rebuild_registry(data_dir: Path, layer: WriteLayer) -> list[str]:
    reg_path = data_dir / REGISTRY
    found: list[dict[str, Any]] = []
    for entry in entries(data_dir):
        if entry.is_symlink() or not entry.is_dir(follow_symlinks=False) or not ids.is_root_id(entry.name):
            continue
        try:
            root = load_node(Path(entry.path) / NODES / f"{entry.name}.json", entry.name)
        except (Unreadable, FileNotFoundError, NotADirectoryError):
            continue  # no readable root node: the directory stays unregistered and is reported
        found.append({"id": root.id, "created": root.created})
    order = {rid: i for i, rid in enumerate(_registered_order(reg_path))}
    # the registry's own order is kept (the creation order readers list); others follow by creation time
    found.sort(key=lambda e: (order.get(e["id"], len(order)), e["created"], e["id"]))
    new = dumps({"version": 1, "roots": found})
    try:
        if read_limited(reg_path, MAX_FILE_BYTES) == new:
            return []
    except OSError:
        pass
    if os.path.lexists(reg_path):
        quarantine(data_dir, reg_path, copy=not reg_path.is_symlink())
    layer_write(layer, reg_path, new)
    return [f"rebuilt {reg_path} from {len(found)} conversation directories"]


def _registered_order(reg_path: Path) -> list[str]:
    import json

    try:
        data = json.loads(read_limited(reg_path, MAX_FILE_BYTES))
        return [str(e["id"]) for e in data["roots"] if isinstance(e, dict)]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return []


def layer_write(layer: WriteLayer, path: Path, data: bytes) -> None:
    apply_atomically(layer, [(path, data)], [], tag="fsck")


def quarantine(data_dir: Path, path: Path, *, copy: bool = False) -> Path:
    """Move (or copy) `path` — a file, a directory or a link, never followed — under `quarantine/`,
    at the same relative path; every directory on the way is created inside the store."""
    rel = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(data_dir)))
    if rel.parts and rel.parts[0] == "..":
        raise StoreIOError("outside the store", where=str(path))
    parent = data_dir / QUARANTINE
    for part in (QUARANTINE, *rel.parts[:-1]):
        current = data_dir / QUARANTINE if part == QUARANTINE else parent / part
        if current.is_symlink():
            raise StoreIOError(
                "a symbolic link inside quarantine/: repair writes nothing outside the store", where=str(current)
            )
        current.mkdir(exist_ok=True)
        parent = current
    dest = parent / rel.name
    n = 0
    while os.path.lexists(dest):
        n += 1
        dest = parent / f"{rel.name}.{n}"
    if copy:
        shutil.copy2(path, dest, follow_symlinks=False)
    else:
        os.replace(path, dest)
    return dest
