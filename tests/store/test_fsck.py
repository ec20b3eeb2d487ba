"""fsck and repair: every violation named with where it is; repair moves, never deletes."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.store.fsck import fsck_dir, fsck_sqlite, repair_dir
from tests.store.helpers import assistant, call, location, make_store, result, user


def build(where: Path) -> dict[str, str]:
    s = make_store("files", where)
    r = s.create_root("sys")
    u = s.append(r, user("question"))
    a = s.append(u, call("c1"))
    t = s.append(a, result("c1"))
    b = s.append(t, assistant("answer"))
    s.add_bookmark(r, "end", b)
    s.close()
    return {"r": r, "u": u, "a": a, "t": t, "b": b}


def contents(where: Path) -> set[str]:
    """Digests of every data file's bytes under `where`, quarantine included (the structure cache
    and the generation counter are derived, and repair rewrites them)."""
    derived = {"structure.json", "generation"}
    return {
        hashlib.sha256(p.read_bytes()).hexdigest() for p in where.rglob("*") if p.is_file() and p.name not in derived
    }


def test_a_clean_store_is_clean(tmp_path: Path) -> None:
    build(tmp_path / "data")
    assert fsck_dir(tmp_path / "data").violations == []


def test_repair_rebuilds_the_registry_and_quarantines_without_deleting(tmp_path: Path) -> None:
    data = tmp_path / "data"
    n = build(data)
    second = make_store("files", data, seed=99)
    r2 = second.create_root("other")
    second.close()
    nodes = data / n["r"] / "nodes"
    (nodes / f"{n['a']}.json").write_text('{"id": "broken')  # t and b are cut off from the root
    (data / "roots.json").write_text(json.dumps({"version": 1, "roots": [{"id": n["r"], "created": 0}]}))
    (nodes / ".x.json.1234.tmp").write_text("half")
    before = contents(data)
    report = fsck_dir(data)
    kinds = {(v.kind, Path(v.where).name) for v in report.violations}
    assert ("corrupt_node", f"{n['a']}.json") in kinds
    assert ("orphan_parent", f"{n['t']}.json") in kinds
    assert ("unregistered_root", r2) in kinds
    assert ("leftover_temp", ".x.json.1234.tmp") in kinds

    repaired = repair_dir(data)
    # the valid descendants of the truncated node stay, and so does the bookmark on them: a person decides
    assert [(v.kind, Path(v.where).name) for v in repaired.violations] == [("orphan_parent", f"{n['t']}.json")]
    assert "unreadable" in repaired.violations[0].detail
    assert any("rebuilt" in a and "roots.json" in a for a in repaired.actions)
    registry = json.loads((data / "roots.json").read_text())
    assert {e["id"] for e in registry["roots"]} == {n["r"], r2}
    assert before <= contents(data)  # every byte that was there is still somewhere
    quarantined = {p.name for p in (data / "quarantine").rglob("*") if p.is_file()}
    assert {f"{n['a']}.json", ".x.json.1234.tmp"} <= quarantined
    assert not {f"{n['t']}.json", f"{n['b']}.json"} & quarantined
    store = make_store("files", data)
    assert [m["role"] for m in store.path(n["u"])] == ["system", "user"]
    assert store.bookmarks(n["r"]) == {"end": n["b"]}
    store.close()


def test_sqlite_fsck_finds_a_cycle_and_a_root_with_a_parent(tmp_path: Path) -> None:
    db_path = location("sqlite", tmp_path)
    s = make_store("sqlite", db_path)
    r = s.create_root("sys")
    u = s.append(r, user("q"))
    a = s.append(u, assistant("a"))
    s.close()
    db = sqlite3.connect(db_path)
    db.execute("UPDATE nodes SET parent = ? WHERE id = ?", (a, u))
    db.commit()
    db.close()
    found = {(v.kind, v.where) for v in fsck_sqlite(db_path).violations}
    assert ("stored_cycle", u) in found or ("stored_cycle", a) in found
    db = sqlite3.connect(db_path)
    db.execute("UPDATE nodes SET parent = ? WHERE id = ?", (r, u))
    db.execute("UPDATE nodes SET parent = ? WHERE id = ?", (a, r))
    db.commit()
    db.close()
    assert ("root_has_parent", r) in {(v.kind, v.where) for v in fsck_sqlite(db_path).violations}


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    n = build(data)
    assert main(["store", "fsck", str(data)]) == 0
    assert capsys.readouterr().out.strip() == "clean"
    (data / n["r"] / "nodes" / f"{n['b']}.json").write_text("{")
    assert main(["store", "fsck", str(data)]) == 1
    out = capsys.readouterr().out
    assert f"{n['b']}.json: corrupt_node:" in out and out.strip().endswith("violations")
    assert main(["store", "fsck", str(data), "--repair"]) == 0
    assert "repaired: moved" in capsys.readouterr().out
    assert main(["store", "fsck", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "nowhere") in err and "no such directory" in " ".join(err.split())
    db = location("sqlite", tmp_path)
    make_store("sqlite", db).close()
    assert main(["store", "fsck", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"violations": [], "actions": []}
