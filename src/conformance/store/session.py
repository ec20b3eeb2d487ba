"""The `store` capability of the runtime protocol: one operation script, JSON in and JSON out.

`ReferenceRuntime.store_session(backend, directory, options)` returns a `StoreSession`; the harness
applies a scenario's operations one by one and compares the results and the final tree.

    apply({"op": "append", "parent": "r_…", "message": {...}})  → {"id": "n_…"}
    apply({"op": "reparent", "node": "n_…", "parent": "n_…"})   → {"error": {"kind": "cycle", "where": "n_…"}}
    apply({"op": "roots"})  → {"roots": ["r_…", …]}  (each conversation once, in registry order)
    apply({"op": "repair"})  → {"remaining": [violation kinds left]}  (fsck --repair, files backend)
    tree()  → {"roots": [...], "nodes": [{id, parent, message, source_info}], "bookmarks": [{root, name, node}]}
    fsck()  → [{"kind", "where", "detail"}]
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from itertools import count
from pathlib import Path
from typing import Any

from conformance.store import open_store
from conformance.store.errors import BadArgumentError, StoreError
from conformance.store.fsck import fsck_dir, fsck_sqlite
from conformance.store.repair import repair_dir
from conformance.store.sqlite import SqliteBackend
from conformance.store.store import DEFAULT_MAX_DEPTH, Store, tree_json

SEED = 20261123


class StoreSession:
    def __init__(self, backend: str, directory: str, options: dict[str, Any] | None = None) -> None:
        opts = dict(options or {})
        max_depth = opts.pop("max_depth", DEFAULT_MAX_DEPTH)
        if opts:
            raise BadArgumentError(f"unknown store options {sorted(opts)}", where="options")
        ticks = count()
        self.lock: AbstractContextManager[Any] = threading.Lock()
        """Held for each operation: the session's callers, on any thread, take turns (seed 000, 4.1:
        "Async lock queue + atomic writes"); another process is kept out by the backend's own locks."""
        self.backend = backend
        self.directory = Path(directory)
        self.store: Store = open_store(
            backend,
            self.directory,
            rng=random.Random(SEED),
            clock=lambda: float(next(ticks)),
            max_depth=int(max_depth),
            fsync=False,
        )

    def apply(self, op: dict[str, Any]) -> dict[str, Any]:
        """One operation; a typed failure is data: `{"error": {"kind", "where", "message"}}`. Callers on
        several threads take turns (the lock is the queue), each operation whole."""
        with self.lock:
            try:
                name = op.get("op") if isinstance(op, dict) else None
                handler = _OPS.get(str(name))
                if handler is None:
                    raise BadArgumentError(f"unknown operation {name!r}; known: {', '.join(sorted(_OPS))}", where="op")
                return handler(self.store, op)
            except StoreError as exc:
                return {"error": exc.to_json()}

    def tree(self) -> dict[str, Any]:
        with self.lock:
            return tree_json(self.store)

    def fsck(self) -> list[dict[str, str]]:
        with self.lock:
            backend = self.store.backend
            if isinstance(backend, SqliteBackend):
                report = fsck_sqlite(backend.path)  # a read-only connection sees every committed operation
            else:
                backend.close()  # writes the structure cache, which fsck also checks
                report = fsck_dir(self.directory)
            return [v.to_json() for v in report.violations]

    def close(self) -> None:
        with self.lock:
            self.store.close()


def _need(op: dict[str, Any], key: str) -> Any:
    if key not in op:
        raise BadArgumentError(f"operation {op.get('op')!r} needs {key!r}", where=key)
    return op[key]


def _create_root(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    return {"id": s.create_root(_need(op, "system"))}


def _append(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    return {"id": s.append(_need(op, "parent"), _need(op, "message"), op.get("source_info"))}


def _path(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    return {"messages": s.path(_need(op, "node"), coalesce_messages=bool(op.get("coalesce", False)))}


def _edit(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    nid, branched = s.edit(_need(op, "node"), _need(op, "content"))
    return {"id": nid, "branched": branched}


def _split(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    node = _need(op, "node")
    return {"id": node, "head": s.split(node, _need(op, "block"), op.get("offset"))}


def _delete(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    return s.delete(_need(op, "node"))


def _reparent(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    s.reparent(_need(op, "node"), _need(op, "parent"))
    return {"id": op["node"], "parent": op["parent"]}


def _children(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    return {"children": s.children(_need(op, "node"))}


def _bookmark(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    s.add_bookmark(_need(op, "root"), _need(op, "name"), _need(op, "node"))
    return {}


def _unbookmark(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    s.remove_bookmark(_need(op, "root"), _need(op, "name"))
    return {}


def _bookmarks(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    return {"bookmarks": s.bookmarks(_need(op, "root"))}


def _repair(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    """fsck --repair on the file layout: what it did and what remains."""
    directory = getattr(s.backend, "dir", None)
    if directory is None:
        raise BadArgumentError("repair is offered on the files backend", where="op")
    report = repair_dir(Path(directory))
    s.backend.refresh()
    return {"remaining": sorted({v.kind for v in report.violations})}


def _roots(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    return {"roots": s.roots()}


def _resolve(s: Store, op: dict[str, Any]) -> dict[str, Any]:
    return {"node": s.resolve(_need(op, "root"), _need(op, "name"))}


_OPS: dict[str, Callable[[Store, dict[str, Any]], dict[str, Any]]] = {
    "create_root": _create_root,
    "append": _append,
    "path": _path,
    "edit": _edit,
    "split": _split,
    "delete": _delete,
    "reparent": _reparent,
    "children": _children,
    "bookmark": _bookmark,
    "unbookmark": _unbookmark,
    "bookmarks": _bookmarks,
    "resolve": _resolve,
    "roots": _roots,
    "repair": _repair,
}
OPERATIONS: tuple[str, ...] = tuple(sorted(_OPS))
