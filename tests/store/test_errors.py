"""Must fail loudly: every condition raises a typed error naming the id or the file, and a failed
operation leaves the store byte for byte as it was (a full disk injected at the write layer)."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.store import Store, tree_json
from conformance.store.errors import StoreError
from conformance.store.layout import WriteLayer
from tests.store.helpers import assistant, call, disk, location, make_store, result, user


class FaultyLayer(WriteLayer):
    """Fails the `fail_at`-th write (phase 1) or replace (phase 2) with `code`."""

    def __init__(self, fail_at: int, *, code: int = errno.ENOSPC, phase: str = "write") -> None:
        super().__init__(fsync=False)
        self.fail_at, self.code, self.phase, self.calls = fail_at, code, phase, 0

    def _tick(self) -> None:
        self.calls += 1
        if self.calls == self.fail_at:
            raise OSError(self.code, os.strerror(self.code))

    def write(self, fd: int, data: bytes, target: Path) -> None:
        if self.phase == "write":
            self._tick()
        super().write(fd, data, target)

    def replace(self, src: Path, dst: Path) -> None:
        if self.phase == "replace":
            try:
                self._tick()
            except OSError as exc:
                from conformance.store.errors import os_error

                raise os_error(exc, str(dst)) from None
        super().replace(src, dst)


def attempt(action: Callable[[], Any]) -> StoreError | None:
    try:
        action()
    except StoreError as exc:
        return exc
    return None


def populated(tmp: Path) -> tuple[Store, dict[str, str]]:
    s = make_store("files", location("files", tmp))
    r = s.create_root("sys")
    u = s.append(r, user("hello world"))
    a = s.append(u, call("c1"))
    t = s.append(a, result("c1"))
    s.add_bookmark(r, "mark", t)
    return s, {"r": r, "u": u, "a": a, "t": t}


OPS: dict[str, Callable[[Store, dict[str, str]], Any]] = {
    "create_root": lambda s, n: s.create_root("another"),
    "append": lambda s, n: s.append(n["t"], assistant("done")),
    "edit_leaf": lambda s, n: s.edit(n["t"], "changed"),
    "edit_branch": lambda s, n: s.edit(n["u"], "changed"),
    "split": lambda s, n: s.split(n["u"], 0, 5),
    "delete": lambda s, n: s.delete(n["a"]),
    "reparent": lambda s, n: s.reparent(n["a"], n["r"]),
    "bookmark": lambda s, n: s.add_bookmark(n["r"], "other", n["u"]),
}


@pytest.mark.parametrize("phase", ["write", "replace"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_a_fault_at_any_write_leaves_the_store_as_it_was(tmp_path: Path, op: str, phase: str) -> None:
    code = errno.ENOSPC if phase == "write" else errno.EACCES
    expected_kind = "disk_full" if phase == "write" else "permission"
    fail_at = 1
    while True:
        s, n = populated(tmp_path / f"{fail_at}")
        s.backend.close()
        data_dir = location("files", tmp_path / f"{fail_at}")
        before_disk, before_tree = disk(data_dir), tree_json(s)
        layer = FaultyLayer(fail_at, code=code, phase=phase)
        s.backend.layer = layer  # type: ignore[attr-defined]
        exc = attempt(lambda: OPS[op](s, n))  # noqa: B023
        if exc is None:
            assert layer.calls >= 2  # every write of the operation was failed once
            return
        assert exc.kind == expected_kind
        assert exc.where is not None and exc.where.startswith(str(data_dir))
        assert disk(data_dir) == before_disk
        assert tree_json(s) == before_tree
        s.backend.layer = WriteLayer(fsync=False)  # type: ignore[attr-defined]
        OPS[op](s, n)  # the store still works once the disk has room again
        fail_at += 1


def test_sqlite_full_disk_is_typed_and_rolled_back(tmp_path: Path) -> None:
    s = make_store("sqlite", location("sqlite", tmp_path))
    r = s.create_root("sys")
    u = s.append(r, user("x"))
    db: sqlite3.Connection = s.backend.db  # type: ignore[attr-defined]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    before = tree_json(s)
    for i in range(200):
        exc = attempt(lambda: s.append(u, assistant("y" * 4000 + str(i))))  # noqa: B023
        if exc is not None:
            break
        before = tree_json(s)
    assert exc is not None
    assert exc.kind == "disk_full" and exc.where == str(location("sqlite", tmp_path))
    assert tree_json(s) == before


def corrupt(tmp: Path) -> tuple[Store, dict[str, str], Path]:
    s, n = populated(tmp)
    s.close()
    return s, n, location("files", tmp)


def reopen(tmp: Path) -> Store:
    data = location("files", tmp)
    for cache in data.glob("*/structure.json"):
        cache.unlink()
    return make_store("files", data)


def node_file(data: Path, n: dict[str, str], key: str) -> Path:
    return data / n["r"] / "nodes" / f"{n[key]}.json"


def test_corrupted_or_missing_registry(tmp_path: Path) -> None:
    _, n, data = corrupt(tmp_path)
    (data / "roots.json").write_text("{not json")
    with pytest.raises(StoreError) as exc:
        reopen(tmp_path).path(n["t"])
    assert (exc.value.kind, exc.value.where) == ("corrupt_registry", str(data / "roots.json"))
    (data / "roots.json").unlink()
    with pytest.raises(StoreError) as exc:
        reopen(tmp_path).roots()
    assert exc.value.kind == "corrupt_registry"


def test_missing_conversation_directory(tmp_path: Path) -> None:
    _, n, data = corrupt(tmp_path)
    (data / n["r"]).rename(data / "elsewhere")
    with pytest.raises(StoreError) as exc:
        reopen(tmp_path).path(n["r"])
    assert (exc.value.kind, exc.value.where) == ("missing_directory", str(data / n["r"]))


def test_invalid_json_in_a_node_file(tmp_path: Path) -> None:
    _, n, data = corrupt(tmp_path)
    path = node_file(data, n, "a")
    path.write_bytes(path.read_bytes()[:25])  # a half-written node file
    with pytest.raises(StoreError) as exc:
        reopen(tmp_path).path(n["t"])
    assert (exc.value.kind, exc.value.where) == ("corrupt_node", str(path))


def rewrite(path: Path, **changes: Any) -> None:
    record = json.loads(path.read_text())
    record.update(changes)
    path.write_text(json.dumps(record))


def test_orphaned_parent_reference(tmp_path: Path) -> None:
    _, n, data = corrupt(tmp_path)
    rewrite(node_file(data, n, "a"), parent="n_00000000000000ee")
    with pytest.raises(StoreError) as exc:
        reopen(tmp_path).path(n["t"])
    assert (exc.value.kind, exc.value.where) == ("orphan_parent", n["a"])


def test_root_with_a_parent_and_a_stored_cycle(tmp_path: Path) -> None:
    _, n, data = corrupt(tmp_path)
    rewrite(data / n["r"] / "nodes" / f"{n['r']}.json", parent=n["t"])
    with pytest.raises(StoreError) as exc:
        reopen(tmp_path).path(n["t"])
    assert (exc.value.kind, exc.value.where) == ("root_has_parent", n["r"])
    rewrite(data / n["r"] / "nodes" / f"{n['r']}.json", parent=None)
    rewrite(node_file(data, n, "u"), parent=n["a"])  # u → a → u
    store = reopen(tmp_path)
    with pytest.raises(StoreError) as exc:
        store.path(n["t"])
    assert exc.value.kind == "stored_cycle" and exc.value.where in (n["u"], n["a"])
    with pytest.raises(StoreError) as exc:
        store.reparent(n["t"], n["a"])
    assert exc.value.kind == "stored_cycle"


def test_unreadable_files_are_permission_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, n, data = corrupt(tmp_path)
    blocked = node_file(data, n, "u")
    original = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self == blocked:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return original(self)

    store = make_store("files", data)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    with pytest.raises(StoreError) as exc:
        store.path(n["t"])
    assert (exc.value.kind, exc.value.where) == ("permission", str(blocked))


@pytest.mark.parametrize("backend", ["files", "sqlite"])
@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("../../etc/passwd", "invalid_id"),
        ("roots.json", "invalid_id"),
        ("N_0000000000000000", "invalid_id"),
        (None, "bad_argument"),
        (7, "bad_argument"),
        ("n_0000000000000000", "missing_node"),
        ("r_0000000000000000", "missing_root"),
    ],
)
def test_ids_are_checked_at_the_boundary(tmp_path: Path, backend: str, value: Any, kind: str) -> None:
    s = make_store(backend, location(backend, tmp_path))
    r = s.create_root("sys")
    before = tree_json(s)
    for action in (lambda: s.path(value), lambda: s.append(value, user("x")), lambda: s.delete(value)):
        with pytest.raises(StoreError) as exc:
            action()
        assert exc.value.kind == kind
    assert tree_json(s) == before
    assert r in s.roots()
