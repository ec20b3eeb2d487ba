"""Consistency check and repair of a store on disk.

`fsck_path(path)` lists every violation with where it is (a file, a root id or a node id) for a
data directory (files backend) or a SQLite database (a file, or a directory holding
`store.sqlite`); a path that is neither is refused. `repair_dir` (in `conformance.store.repair`)
mends a data directory without losing data and without writing outside it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conformance.store import ids
from conformance.store.checks import Conversation, Report, Violation, check_tree
from conformance.store.errors import StoreError
from conformance.store.fsck_files import fsck_dir
from conformance.store.layout import REGISTRY
from conformance.store.model import Node
from conformance.store.repair import repair_dir

SQLITE_FILE = "store.sqlite"
_SQLITE_MAGIC = b"SQLite format 3\x00"


class NotAStoreError(StoreError):
    """A path that holds no store: no registry, no conversation directory, no SQLite database."""

    def __init__(self, message: str, *, where: str) -> None:
        super().__init__("not_a_store", message, where=where)


def identify(path: Path) -> tuple[str, Path]:
    """("files", data directory) or ("sqlite", database file); NotAStoreError for anything else."""
    if path.is_file():
        with open(path, "rb") as fh:
            if fh.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC:
                return "sqlite", path
        raise NotAStoreError("not a SQLite database and not a data directory", where=str(path))
    if not path.is_dir():
        raise NotAStoreError("neither a data directory nor a database file", where=str(path))
    names = {p.name for p in path.iterdir()}
    if REGISTRY in names or any(ids.is_root_id(n) for n in names):
        return "files", path
    if SQLITE_FILE in names and (path / SQLITE_FILE).is_file():
        return "sqlite", path / SQLITE_FILE
    raise NotAStoreError(
        f"not a store: no {REGISTRY}, no conversation directory (r_…) and no {SQLITE_FILE}", where=str(path)
    )


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
                except (ValueError, TypeError, RecursionError) as exc:
                    v.append(Violation("corrupt_node", nid, f"invalid JSON ({type(exc).__name__})"))
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
    """A data directory (files backend) or a SQLite database (its file, or its directory)."""
    kind, where = identify(path)
    return fsck_sqlite(where) if kind == "sqlite" else fsck_dir(where)


__all__ = [
    "Conversation",
    "NotAStoreError",
    "Report",
    "Violation",
    "check_tree",
    "fsck_dir",
    "fsck_path",
    "fsck_sqlite",
    "identify",
    "repair_dir",
]
