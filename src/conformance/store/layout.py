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

import errno
import json
import os
import stat
import tempfile
from collections.abc import Iterable
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
INTENT = ".intent.json"
"""An operation under way (or interrupted): see `apply_atomically` and `recover`."""


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
    layer: WriteLayer,
    writes: list[tuple[Path, bytes]],
    deletes: list[Path],
    tag: str,
    *,
    barrier: bool = False,
    intent: Path | None = None,
) -> None:
    """Write every file and remove every file, or change nothing — even across a crash.

    With `barrier`, the first file's rename is made durable (its directory fsynced) before any
    other: the file backend puts the bumped generation first, so after a crash the structure cache
    can be stale only in the safe direction (ignored, then rebuilt from the node files).

    Phase 1 writes all temp files (where a full disk fails: the temps are removed). With `intent`,
    an intent record naming every temp, target and backup is then made durable: until it is
    removed, the operation is not done, and `recover(intent)` rolls it back (a process killed at any
    step of phase 2). Phase 2 keeps a hard link to each old file, renames the temps into place and
    removes the deleted files; an error there restores every old file from its link. Removing the
    intent record is the commit point; the backups are removed after it."""
    temps = _write_temps(layer, writes)
    if intent is not None:
        try:
            _write_intent(layer, intent, temps, deletes, tag)
        except BaseException:
            _remove(tmp for tmp, _ in temps)
            raise
    done: list[tuple[Path, Path | None]] = []  # (target, backup of the old file or None)
    try:
        _swap(layer, temps, deletes, tag, done, barrier=barrier)
        if intent is not None:
            layer.unlink(intent)  # the commit point
            layer.sync_dir(intent.parent)
    except BaseException:
        _remove(tmp for tmp, _ in temps)
        for target, backup in reversed(done):
            if backup is None:
                target.unlink(missing_ok=True)
            else:
                restore(backup, target)
        if intent is not None:
            intent.unlink(missing_ok=True)
        raise
    for _, backup in done:
        if backup is not None:
            layer.unlink(backup)


def _write_temps(layer: WriteLayer, writes: list[tuple[Path, bytes]]) -> list[tuple[Path, Path]]:
    temps: list[tuple[Path, Path]] = []
    try:
        for target, data in writes:
            temps.append((layer.write_temp(target, data), target))
    except BaseException:
        _remove(tmp for tmp, _ in temps)
        raise
    return temps


def _swap(
    layer: WriteLayer,
    temps: list[tuple[Path, Path]],
    deletes: list[Path],
    tag: str,
    done: list[tuple[Path, Path | None]],
    *,
    barrier: bool,
) -> None:
    """Phase 2: each old file linked aside, then replaced or removed; `done` records what happened."""
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
        for parent in {t.parent for t, _ in done}:
            layer.sync_dir(parent)
    except BaseException:
        if pending is not None:
            pending.unlink(missing_ok=True)
        raise


def _remove(paths: Iterable[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def _backup_path(target: Path, tag: str) -> Path:
    return target.with_name(f".{target.name}.{tag}.bak")


def _backup(layer: WriteLayer, target: Path, tag: str) -> Path | None:
    if not target.exists():
        return None
    backup = _backup_path(target, tag)
    layer.link(target, backup)
    return backup


def _write_intent(
    layer: WriteLayer, intent: Path, temps: list[tuple[Path, Path]], deletes: list[Path], tag: str
) -> None:
    base = intent.parent

    def rel(path: Path) -> str:
        return os.path.relpath(path, base)

    entries = [
        {"target": rel(t), "temp": rel(tmp), "backup": rel(_backup_path(t, tag)), "existed": t.exists()}
        for tmp, t in temps
    ]
    entries += [{"target": rel(t), "temp": None, "backup": rel(_backup_path(t, tag)), "existed": True} for t in deletes]
    record = dumps({"version": 1, "tag": tag, "entries": entries})
    tmp = layer.write_temp(intent, record)
    try:
        layer.replace(tmp, intent)
        layer.sync_dir(base)
    except BaseException:
        tmp.unlink(missing_ok=True)
        intent.unlink(missing_ok=True)
        raise


class IntentError(Exception):
    """An intent record that cannot be read or names a path outside the store: left for a person."""


def read_intent(intent: Path, store_dir: Path) -> list[dict[str, Any]]:
    """The entries of an intent record, every path resolved inside `store_dir` (never outside it)."""
    try:
        data = json.loads(read_limited(intent, 1 << 20))
        entries = data["entries"]
        if not isinstance(entries, list):
            raise TypeError("entries is not a list")
        out: list[dict[str, Any]] = []
        for e in entries:
            item: dict[str, Any] = {"existed": bool(e["existed"])}
            for key in ("target", "temp", "backup"):
                item[key] = None if e[key] is None else _inside(intent.parent / str(e[key]), store_dir)
            if item["target"] is None or item["backup"] is None:
                raise ValueError("an entry without target or backup")
            out.append(item)
        return out
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IntentError(f"unreadable intent record ({exc})") from None


def _inside(path: Path, store_dir: Path) -> Path:
    resolved = Path(os.path.normpath(path))
    root = Path(os.path.normpath(store_dir))
    if resolved != root and root not in resolved.parents:
        raise ValueError(f"{path} is outside the store")
    return resolved


def restore(backup: Path, target: Path) -> None:
    """Put the old file back from its hard link. rename(2) does nothing when both names are links
    to the same file (the target was never replaced): then the backup name alone is removed."""
    if os.path.lexists(target) and os.path.samefile(backup, target):
        os.unlink(backup)
    else:
        os.replace(backup, target)


def recover(intent: Path, store_dir: Path) -> bool:
    """Roll back the interrupted operation `intent` records; True when there was one.

    Every entry is undone in reverse: a temp still present means its rename never happened (the
    temp and any backup are removed); otherwise an old file comes back from its backup, and a file
    that did not exist before is removed. Runs under the lock the operation held."""
    if not intent.is_file() or intent.is_symlink():
        return False
    for e in reversed(read_intent(intent, store_dir)):
        target, temp, backup = e["target"], e["temp"], e["backup"]
        if temp is not None and os.path.lexists(temp):
            os.unlink(temp)
            if os.path.lexists(backup):
                os.unlink(backup)
            continue
        if os.path.lexists(backup):
            restore(backup, target)
        elif not e["existed"] and os.path.lexists(target):
            os.unlink(target)
    intent.unlink()
    return True


def read_limited(path: Path, limit: int) -> bytes:
    """A regular file's bytes, never following a symlink, never more than `limit` bytes, never
    blocking on a FIFO or a device: anything else is an OSError naming why."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
