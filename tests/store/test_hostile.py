"""Hostile store layouts: fsck and repair never write outside the store, never follow a link, never
hang or print a traceback, and say what is left (exit 1) or what they refuse (exit 2, one line)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.store import open_store
from tests.cli.forked_cli import run_cli
from tests.store.helpers import assistant, make_store, user

TIMEOUT = 60  # seconds per command: a hang fails the test instead of the suite


def build(data: Path) -> dict[str, str]:
    s = make_store("files", data)
    r = s.create_root("sys")
    u = s.append(r, user("question"))
    a = s.append(u, assistant("answer"))
    s.add_bookmark(r, "end", a)
    s.close()
    return {"r": r, "u": u, "a": a}


def snapshot(where: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for p in sorted(where.rglob("*")):
        key = p.relative_to(where).as_posix()
        out[key] = f"link:{os.readlink(p)}" if p.is_symlink() else (p.read_bytes() if p.is_file() else "dir")
    return out


def fsck(*args: str) -> subprocess.CompletedProcess[str]:
    """`conformance store fsck ARGS` in its own process (forked from a server that imported the command line)."""
    return run_cli(["store", "fsck", *args], Path.cwd(), dict(os.environ), TIMEOUT)


def _nodes(data: Path, n: dict[str, str]) -> Path:
    return data / n["r"] / "nodes"


def _link_nodes(data: Path, n: dict[str, str], outside: Path) -> None:
    nodes = _nodes(data, n)
    for f in nodes.iterdir():
        (outside / f.name).write_bytes(f.read_bytes())
    for f in list(nodes.iterdir()):
        f.unlink()
    nodes.rmdir()
    nodes.symlink_to(outside, target_is_directory=True)


def _link_file(name: str) -> Callable[[Path, dict[str, str], Path], None]:
    def plant(data: Path, n: dict[str, str], outside: Path) -> None:
        target = data / name if name == "roots.json" else data / n["r"] / name
        (outside / name).write_bytes(target.read_bytes())
        target.unlink()
        target.symlink_to(outside / name)

    return plant


def _fifo_node(data: Path, n: dict[str, str], outside: Path) -> None:
    path = _nodes(data, n) / f"{n['a']}.json"
    path.unlink()
    os.mkfifo(path)


def _dev_zero(data: Path, n: dict[str, str], outside: Path) -> None:
    path = _nodes(data, n) / f"{n['a']}.json"
    path.unlink()
    path.symlink_to("/dev/zero")


def _huge(data: Path, n: dict[str, str], outside: Path) -> None:
    with open(_nodes(data, n) / f"{n['a']}.json", "r+b") as fh:
        fh.truncate(3 << 30)  # sparse: 3 GiB on paper, nothing on disk


def _deep(data: Path, n: dict[str, str], outside: Path) -> None:
    (_nodes(data, n) / f"{n['a']}.json").write_text("[" * 200_000 + "]" * 200_000)


def _generation(data: Path, n: dict[str, str], outside: Path) -> None:
    (data / n["r"] / "generation").write_text("abc")


def _duplicate(data: Path, n: dict[str, str], outside: Path) -> None:
    s = make_store("files", data, seed=42)
    r2 = s.create_root("other")
    s.close()
    record = json.loads((_nodes(data, n) / f"{n['u']}.json").read_text())
    record.update(root=r2, parent=r2)
    (data / r2 / "nodes" / f"{n['u']}.json").write_text(json.dumps(record))


def _link_conversation(data: Path, n: dict[str, str], outside: Path) -> None:
    conv = data / n["r"]
    conv.rename(outside / "conv")
    conv.symlink_to(outside / "conv", target_is_directory=True)


def _link_quarantine(data: Path, n: dict[str, str], outside: Path) -> None:
    (data / "quarantine").symlink_to(outside, target_is_directory=True)
    (_nodes(data, n) / f"{n['a']}.json").write_text('{"id": ')  # something to move


def _truncated_root(data: Path, n: dict[str, str], outside: Path) -> None:
    (_nodes(data, n) / f"{n['r']}.json").write_text('{"id": "r_')


def _truncated_middle(data: Path, n: dict[str, str], outside: Path) -> None:
    (_nodes(data, n) / f"{n['u']}.json").write_text('{"id": "n_')


LAYOUTS: dict[str, tuple[Callable[[Path, dict[str, str], Path], None], set[int]]] = {
    # name: (plant, acceptable exit codes of --repair)
    "symlinked nodes dir": (_link_nodes, {0}),
    "symlinked bookmarks": (_link_file("bookmarks.json"), {0, 1}),
    "symlinked roots.json": (_link_file("roots.json"), {0}),
    "symlinked generation": (_link_file("generation"), {0}),
    "symlinked structure cache": (_link_file("structure.json"), {0}),
    "fifo node": (_fifo_node, {0}),
    "node linked to /dev/zero": (_dev_zero, {0}),
    "3 GiB node": (_huge, {0}),
    "deeply nested node": (_deep, {0}),
    "non-numeric generation": (_generation, {0}),
    "node id in two conversations": (_duplicate, {0}),  # the stray copy set aside, the original kept
    "symlinked conversation": (_link_conversation, {0}),
    "symlinked quarantine": (_link_quarantine, {2}),
    "truncated root": (_truncated_root, {0}),
    "truncated middle node": (_truncated_middle, {1}),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_hostile_layout(tmp_path: Path, name: str) -> None:
    plant, repair_codes = LAYOUTS[name]
    data, outside = tmp_path / "data", tmp_path / "outside"
    outside.mkdir()
    n = build(data)
    plant(data, n, outside)
    before_outside = snapshot(outside)
    checked = fsck(str(data))
    assert checked.returncode == 1, (name, checked.stdout, checked.stderr)
    assert "Traceback" not in checked.stderr
    repaired = fsck(str(data), "--repair")
    assert "Traceback" not in repaired.stderr, repaired.stderr
    assert repaired.returncode in repair_codes, (name, repaired.stdout, repaired.stderr)
    if repaired.returncode == 2:
        assert len(repaired.stderr.strip().splitlines()) == 1
    assert snapshot(outside) == before_outside, f"{name}: repair changed something outside the store"
    again = fsck(str(data))
    assert again.returncode == (0 if repaired.returncode == 0 else again.returncode)
    if repaired.returncode == 1:
        assert repaired.stdout.strip().endswith(("violation", "violations"))


def test_a_folder_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "notes.txt").write_text("hello")
    for folder in ("empty", "files"):
        out = fsck(str(tmp_path / folder))
        assert out.returncode == 2
        assert "not a store" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    (tmp_path / "text.txt").write_text("not sqlite")
    assert fsck(str(tmp_path / "text.txt")).returncode == 2


def test_a_sqlite_store_is_found_in_its_directory(tmp_path: Path) -> None:
    store = open_store("sqlite", tmp_path, fsync=False)
    r = store.create_root("sys")
    u = store.append(r, user("q"))
    store.close()
    db = sqlite3.connect(tmp_path / "store.sqlite")
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("UPDATE nodes SET parent = ? WHERE id = ?", (u, u))  # a cycle
    db.commit()
    db.close()
    out = fsck(str(tmp_path))
    assert out.returncode == 1 and "stored_cycle" in out.stdout
    refused = fsck(str(tmp_path), "--repair")
    assert refused.returncode == 2 and "SQLite" in refused.stderr
    assert not (tmp_path / "roots.json").exists()
