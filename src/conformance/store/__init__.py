"""The conversation-tree store: roots (a system message each), nodes (one message each), bookmarks.

    store = open_store("files", "data/")        # or open_store("sqlite", "data/store.sqlite")
    root = store.create_root("You are terse.")
    a = store.append(root, {"role": "user", "content": "hi"})
    store.path(a)                                # [system, user]: what a request is built from

Every operation validates, then writes in one transaction; a failure raises a typed `StoreError`
(`kind`, `where`) and leaves the store as it was. `fsck` finds corruption on disk; see docs/store.md.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

from conformance.store.engine import check_tool_results, coalesce
from conformance.store.errors import StoreError
from conformance.store.files import FileBackend
from conformance.store.ids import IdFactory
from conformance.store.model import Node
from conformance.store.sqlite import SqliteBackend
from conformance.store.store import DEFAULT_MAX_DEPTH, Store, tree_json

BACKENDS: tuple[str, ...] = ("files", "sqlite")
SQLITE_FILE = "store.sqlite"


def open_store(
    backend: str,
    location: Path | str,
    *,
    rng: random.Random | None = None,
    clock: Callable[[], float] = time.time,
    max_depth: int = DEFAULT_MAX_DEPTH,
    fsync: bool = True,
) -> Store:
    """A store over `files` (a data directory) or `sqlite` (a database file, or a directory that
    gets `store.sqlite`)."""
    from conformance.store.errors import BadArgumentError
    from conformance.store.layout import WriteLayer

    path = Path(location)
    ids = IdFactory(rng)
    if backend == "files":
        return Store(FileBackend(path, layer=WriteLayer(fsync=fsync)), id_factory=ids, clock=clock, max_depth=max_depth)
    if backend == "sqlite":
        db = path / SQLITE_FILE if path.is_dir() else path
        sync = "NORMAL" if fsync else "OFF"
        return Store(SqliteBackend(db, synchronous=sync), id_factory=ids, clock=clock, max_depth=max_depth)
    raise BadArgumentError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}", where="backend")


__all__ = [
    "BACKENDS",
    "FileBackend",
    "IdFactory",
    "Node",
    "SqliteBackend",
    "Store",
    "StoreError",
    "check_tool_results",
    "coalesce",
    "open_store",
    "tree_json",
]
