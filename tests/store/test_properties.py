"""Generated properties: every operation succeeds with every invariant holding or fails with a
typed error changing nothing; fsck finds every planted corruption; the two backends agree."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from conformance.store import Store, check_tool_results, tree_json
from conformance.store.fsck import Conversation, check_tree, fsck_dir, fsck_sqlite
from tests.store.helpers import location, make_store
from tests.store.run_script import run
from tests.store.strategies import corruptions, scripts

FAST = settings(max_examples=15, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_DEPTH = 4


def invariants(store: Store) -> None:
    for rid in store.roots():
        conv = Conversation(rid, bookmarks=store.bookmarks(rid), bookmarks_where=rid)
        for nid in store.subtree(rid):
            conv.nodes[nid] = store.get(nid)
            conv.files[nid] = nid
            path = store.path(nid)
            assert path[0]["role"] == "system" and len(path) - 1 <= MAX_DEPTH
            check_tool_results(path)
        assert check_tree(conv)[0] == []


def step_check(store: Store, before: Any, outcome: Any) -> None:
    if outcome[0] == "error":
        assert tree_json(store) == before, f"failed with {outcome[1:]} and changed the store"
    else:
        invariants(store)


def fsck_clean(store: Store, backend: str, where: Path) -> None:
    store.close()
    report = fsck_dir(where) if backend == "files" else fsck_sqlite(where)
    assert report.violations == []


@FAST
@given(script=scripts)
def test_every_operation_succeeds_with_invariants_or_changes_nothing(script: list[tuple[Any, ...]]) -> None:
    for backend in ("files", "sqlite"):
        with tempfile.TemporaryDirectory() as tmp:
            where = location(backend, Path(tmp))
            store = make_store(backend, where, max_depth=MAX_DEPTH)
            run(store, "system prompt", script, check=step_check)
            fsck_clean(store, backend, where)


@FAST
@given(script=scripts)
def test_the_two_backends_agree_on_every_script(script: list[tuple[Any, ...]]) -> None:
    seen: dict[str, Any] = {}
    for backend in ("files", "sqlite"):
        with tempfile.TemporaryDirectory() as tmp:
            store = make_store(backend, location(backend, Path(tmp)), max_depth=MAX_DEPTH)
            trace = run(store, "system prompt", script)
            seen[backend] = (trace, tree_json(store))
            store.close()
    assert seen["files"] == seen["sqlite"]


# planted corruption ---------------------------------------------------------------------------

EXPECTED_KIND = {
    "truncated_node": "corrupt_node",
    "orphan_parent": "orphan_parent",
    "cycle": "stored_cycle",
    "root_has_parent": "root_has_parent",
    "stale_registry_entry": "missing_directory",
    "unregistered_root": "unregistered_root",
    "corrupt_registry": "corrupt_registry",
    "dangling_bookmark": "dangling_bookmark",
    "leftover_temp": "leftover_temp",
    "stale_cache": "stale_cache",
}


def small_tree(where: Path) -> tuple[str, list[str]]:
    store = make_store("files", where)
    root = store.create_root("sys")
    nodes = [root]
    for i in range(6):
        parent = nodes[(i * 7) % len(nodes)]
        role = "user" if i % 2 == 0 else "assistant"
        nodes.append(store.append(parent, {"role": role, "content": f"turn {i}"}))
    store.add_bookmark(root, "mark", nodes[-1])
    store.close()
    return root, nodes


def plant(where: Path, root: str, nodes: list[str], kind: str, pick: int) -> str:
    """Damage the store; returns the `where` fsck must name."""
    conv = where / root
    target = nodes[1 + pick % (len(nodes) - 1)]  # never the root node itself
    node_file = conv / "nodes" / f"{target}.json"

    def edit(path: Path, **fields: Any) -> None:
        record = json.loads(path.read_text())
        record.update(fields)
        path.write_text(json.dumps(record))

    if kind == "truncated_node":
        data = node_file.read_bytes()
        node_file.write_bytes(data[: max(1, pick % len(data))])
        return str(node_file)
    if kind == "orphan_parent":
        edit(node_file, parent="n_0000000000000bad")
        return str(node_file)
    if kind == "cycle":
        edit(node_file, parent=target)
        return str(node_file)
    if kind == "root_has_parent":
        edit(conv / "nodes" / f"{root}.json", parent=target)
        return str(conv / "nodes" / f"{root}.json")
    if kind == "stale_registry_entry":
        ghost = "r_00000000000000" + f"{pick:02x}"
        registry = json.loads((where / "roots.json").read_text())
        registry["roots"].append({"id": ghost, "created": 0})
        (where / "roots.json").write_text(json.dumps(registry))
        return str(where / ghost)
    if kind == "unregistered_root":
        (where / "roots.json").write_text(json.dumps({"version": 1, "roots": []}))
        return str(conv)
    if kind == "corrupt_registry":
        text = (where / "roots.json").read_bytes()
        (where / "roots.json").write_bytes(text[: pick % len(text)])
        return str(where / "roots.json")
    if kind == "dangling_bookmark":
        (conv / "bookmarks.json").write_text(json.dumps({"version": 1, "bookmarks": {"x": "n_00000000000000aa"}}))
        return f"{conv / 'bookmarks.json'}#x"
    if kind == "leftover_temp":
        temp = conv / "nodes" / f".{target}.json.abc123.tmp"
        temp.write_bytes(b'{"half')
        return str(temp)
    assert kind == "stale_cache"
    cache = json.loads((conv / "structure.json").read_text())
    cache["nodes"][target][0] = root if cache["nodes"][target][0] != root else nodes[1]
    (conv / "structure.json").write_text(json.dumps(cache))
    return str(conv / "structure.json")


@settings(max_examples=20, derandomize=True, deadline=None)
@given(corruption=corruptions)
def test_fsck_finds_every_planted_corruption(corruption: tuple[str, int]) -> None:
    kind, pick = corruption
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp) / "data"
        root, nodes = small_tree(where)
        assert fsck_dir(where).violations == []
        expected_where = plant(where, root, nodes, kind, pick)
        found = {(v.kind, v.where) for v in fsck_dir(where).violations}
        assert (EXPECTED_KIND[kind], expected_where) in found, found
