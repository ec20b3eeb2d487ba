"""The SQLite backend: the same contract in one database file (WAL, foreign keys, one transaction
per operation). It exists to prove that the contract is about behaviour, not about files.

    roots(id PK, created, seq)
    nodes(id PK, root → roots, parent → nodes, seq, message JSON, source_info JSON, created, updated)
    bookmarks(root → roots, name, node → nodes; PK (root, name))
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from conformance.store.backend import Changes
from conformance.store.errors import (
    CorruptStoreError,
    DiskFullError,
    NotFoundError,
    StoreError,
    StoreIOError,
    StorePermissionError,
)
from conformance.store.model import Node

SCHEMA = """
CREATE TABLE IF NOT EXISTS roots (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS nodes (
    id TEXT PRIMARY KEY,
    root TEXT NOT NULL REFERENCES roots(id),
    parent TEXT REFERENCES nodes(id) DEFERRABLE INITIALLY DEFERRED,
    seq INTEGER NOT NULL,
    message TEXT NOT NULL,
    source_info TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS nodes_parent ON nodes(parent, seq);
CREATE INDEX IF NOT EXISTS nodes_root ON nodes(root, seq);
CREATE TABLE IF NOT EXISTS bookmarks (
    root TEXT NOT NULL REFERENCES roots(id),
    name TEXT NOT NULL,
    node TEXT NOT NULL REFERENCES nodes(id) DEFERRABLE INITIALLY DEFERRED,
    PRIMARY KEY (root, name)
);
"""


def sql_error(exc: sqlite3.Error, where: str) -> StoreError:
    text = str(exc).lower()
    if "full" in text:
        return DiskFullError(f"database or disk is full ({exc})", where=where)
    if "readonly" in text or "permission" in text or "unable to open" in text:
        return StorePermissionError(f"cannot write the database ({exc})", where=where)
    if (isinstance(exc, sqlite3.DatabaseError) and "malformed" in text) or "not a database" in text:
        return CorruptStoreError("corrupt_database", str(exc), where=where)
    return StoreIOError(f"{type(exc).__name__}: {exc}", where=where)


class SqliteBackend:
    name = "sqlite"

    def __init__(self, path: Path | str, *, synchronous: str = "NORMAL") -> None:
        self.path = Path(path)
        self.where = str(self.path)
        try:
            # used by whichever thread the session's lock lets in, one at a time
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute(f"PRAGMA synchronous = {synchronous}")
            self.db.executescript(SCHEMA)
        except sqlite3.Error as exc:
            raise sql_error(exc, self.where) from None

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise sql_error(exc, self.where) from None

    def refresh(self) -> None:
        """Nothing is cached: every read is a query."""

    def roots(self) -> list[str]:
        return [r[0] for r in self._query("SELECT id FROM roots ORDER BY seq")]

    def get(self, node_id: str) -> Node:
        rows = self._query(
            "SELECT id, root, parent, seq, message, source_info, created, updated FROM nodes WHERE id = ?", (node_id,)
        )
        if not rows:
            kind = "missing_root" if node_id.startswith("r_") else "missing_node"
            raise NotFoundError(kind, f"no node {node_id}", where=node_id)
        nid, root, parent, seq, message, source, created, updated = rows[0]
        try:
            return Node(nid, root, parent, seq, json.loads(message), json.loads(source), created, updated)
        except ValueError as exc:
            raise CorruptStoreError("corrupt_node", f"row holds invalid JSON ({exc})", where=nid) from None

    def parent_of(self, node_id: str) -> str | None:
        rows = self._query("SELECT parent FROM nodes WHERE id = ?", (node_id,))
        if not rows:
            raise NotFoundError("missing_node", f"no node {node_id}", where=node_id)
        parent: str | None = rows[0][0]
        return parent

    def children(self, node_id: str) -> list[str]:
        return [r[0] for r in self._query("SELECT id FROM nodes WHERE parent = ? ORDER BY seq", (node_id,))]

    def next_seq(self, root: str) -> int:
        rows = self._query("SELECT MAX(seq) FROM nodes WHERE root = ?", (root,))
        return 0 if rows[0][0] is None else int(rows[0][0]) + 1

    def bookmarks(self, root: str) -> dict[str, str]:
        return dict(self._query("SELECT name, node FROM bookmarks WHERE root = ? ORDER BY name", (root,)))

    @contextmanager
    def transaction(self, root: str | None) -> Iterator[Changes]:
        changes = Changes()
        try:
            self.db.execute("BEGIN IMMEDIATE")  # the writer lock, held while the operation validates
        except sqlite3.Error as exc:
            raise sql_error(exc, self.where) from None
        try:
            yield changes
            self._apply(changes)
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            self.db.execute("ROLLBACK")
            raise sql_error(exc, self.where) from None
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _apply(self, changes: Changes) -> None:
        db = self.db
        if changes.new_root is not None:
            node = changes.put[changes.new_root]
            seq = db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM roots").fetchone()[0]
            db.execute("INSERT INTO roots (id, created, seq) VALUES (?, ?, ?)", (node.id, node.created, seq))
        doomed = [(n.id,) for n in changes.delete]
        if doomed:
            db.executemany("DELETE FROM bookmarks WHERE node = ?", doomed)
            db.executemany("DELETE FROM nodes WHERE id = ?", doomed)
        db.executemany(
            "INSERT INTO nodes (id, root, parent, seq, message, source_info, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET parent = excluded.parent, "
            "message = excluded.message, source_info = excluded.source_info, updated = excluded.updated",
            [
                (n.id, n.root, n.parent, n.seq, _dumps(n.message), _dumps(n.source_info), n.created, n.updated)
                for n in changes.put.values()
            ],
        )
        for root, marks in changes.bookmarks.items():
            db.execute("DELETE FROM bookmarks WHERE root = ?", (root,))
            db.executemany(
                "INSERT INTO bookmarks (root, name, node) VALUES (?, ?, ?)", [(root, k, v) for k, v in marks.items()]
            )

    def root_of(self, node_id: str) -> str:
        """The conversation a node belongs to (NotFoundError when none has it)."""
        return self.get(node_id).root

    def reading(self, root: str) -> AbstractContextManager[None]:
        """SQLite reads see one committed state per statement: nothing to take."""
        return nullcontext()

    def close(self) -> None:
        self.db.close()


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
