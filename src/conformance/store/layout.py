"""The on-disk layout of the file backend and its atomic write layer.

DATA/
  roots.json                 {"version": 1, "roots": [{"id": "r_…", "created": 1732…}]}
  .roots.lock                held while the registry is written
  r_<16 hex>/                one directory per conversation
    nodes/<node id>.json     one file per node (the root node's id is the root id)
    bookmarks.json           {"version": 1, "bookmarks": {"name": "n_…"}}
    generation               an integer bumped by every write (invalidates the cache)
    structure.json           cache: {"generation": g, "nodes": {"n_…": ["parent", seq]}}
    .lock                    held by a writer of this conversation
  quarantine/                files `fsck --repair` could not read, moved, never deleted
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from conformance.store.errors import os_error

REGISTRY = "roots.json"
REGISTRY_LOCK = ".roots.lock"
NODES = "nodes"
BOOKMARKS = "bookmarks.json"
GENERATION = "generation"
STRUCTURE = "structure.json"
LOCK = ".lock"
QUARANTINE = "quarantine"
TEMP_SUFFIXES = (".tmp", ".bak")


def dumps(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


class WriteLayer:
    """Temp file + fsync + `os.replace`. Every OSError becomes a typed error naming the file.

    Tests subclass it to inject faults (ENOSPC, EACCES) at the exact write that fails."""

    def __init__(self, *, fsync: bool = True) -> None:
        self.fsync = fsync

    def write_temp(self, target: Path, data: bytes) -> Path:
        """A new temp file beside `target` holding `data`, flushed to the disk."""
        try:
            fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        except OSError as exc:
            raise os_error(exc, str(target)) from None
        tmp = Path(name)
        try:
            with os.fdopen(fd, "wb") as fh:
                self.write(fh.fileno(), data, target)
                if self.fsync:
                    os.fsync(fh.fileno())
            os.chmod(tmp, 0o644)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise os_error(exc, str(target)) from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return tmp

    def write(self, fd: int, data: bytes, target: Path) -> None:
        """The one place bytes reach the disk (the seam for fault injection)."""
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]

    def replace(self, src: Path, dst: Path) -> None:
        try:
            os.replace(src, dst)
        except OSError as exc:
            raise os_error(exc, str(dst)) from None

    def link(self, src: Path, dst: Path) -> None:
        try:
            os.link(src, dst)
        except OSError as exc:
            raise os_error(exc, str(src)) from None

    def unlink(self, path: Path) -> None:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            raise os_error(exc, str(path)) from None

    def mkdir(self, path: Path) -> None:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise os_error(exc, str(path)) from None

    def sync_dir(self, path: Path) -> None:
        if not self.fsync:
            return
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass  # some filesystems refuse fsync on a directory; the renames are still ordered
        finally:
            os.close(fd)


def apply_atomically(
    layer: WriteLayer, writes: list[tuple[Path, bytes]], deletes: list[Path], tag: str, *, barrier: bool = False
) -> None:
    """Write every file and remove every file, or change nothing.

    With `barrier`, the first file's rename is made durable (its directory fsynced) before any
    other: the file backend puts the bumped generation first, so after a crash the structure cache
    can be stale only in the safe direction (ignored, then rebuilt from the node files).

    Phase 1 writes all temp files (where a full disk fails: the temps are removed). Phase 2 keeps
    a hard link to each old file, renames the temps into place and removes the deleted files; an
    error there restores every old file from its link."""
    temps: list[tuple[Path, Path]] = []
    try:
        for target, data in writes:
            temps.append((layer.write_temp(target, data), target))
    except BaseException:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)
        raise
    done: list[tuple[Path, Path | None]] = []  # (target, backup of the old file or None)
    pending: Path | None = None  # the backup of a file whose replacement has not happened yet
    try:
        for i, (tmp, target) in enumerate(temps):
            pending = _backup(layer, target, tag)
            layer.replace(tmp, target)
            done.append((target, pending))
            pending = None
            if i == 0 and barrier:
                layer.sync_dir(target.parent)
        for target in deletes:
            pending = _backup(layer, target, tag)
            layer.unlink(target)
            done.append((target, pending))
            pending = None
    except BaseException:
        if pending is not None:
            pending.unlink(missing_ok=True)
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)
        for target, backup in reversed(done):
            if backup is None:
                target.unlink(missing_ok=True)
            else:
                os.replace(backup, target)
        raise
    for _, backup in done:
        if backup is not None:
            backup.unlink(missing_ok=True)
    for parent in {t.parent for t, _ in done}:
        layer.sync_dir(parent)


def _backup(layer: WriteLayer, target: Path, tag: str) -> Path | None:
    if not target.exists():
        return None
    backup = target.with_name(f".{target.name}.{tag}.bak")
    layer.link(target, backup)
    return backup
