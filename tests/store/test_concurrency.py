"""Several processes write and read one data directory at once: every read is consistent (a typed
error at worst, never a raw FileNotFoundError), no acknowledged write is lost, fsck is clean after."""

from __future__ import annotations

import contextlib
import multiprocessing
import random
from pathlib import Path

import pytest

from conformance.store import open_store
from conformance.store.errors import NotFoundError

WORKERS = 16
OPS = 60


def _work(data: str, root: str, seed: int, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    rng = random.Random(seed)
    store = open_store("files", data, rng=random.Random(seed), fsync=False)
    mine: list[str] = []
    problems: list[str] = []
    for _ in range(OPS):
        try:
            roll = rng.random()
            if roll < 0.45 or not mine:
                parent = rng.choice([root, *mine[-3:]])
                role = "assistant" if parent != root and len(store.path(parent)) % 2 == 0 else "user"
                mine.append(store.append(parent, {"role": role, "content": f"w{seed}"}))
            elif roll < 0.6:
                victim = mine.pop(rng.randrange(len(mine)))
                gone = set(store.subtree(victim)) if victim else set()
                store.delete(victim)
                mine = [m for m in mine if m not in gone]
            else:  # reads across every writer's nodes
                for child in store.children(root)[-5:]:
                    with contextlib.suppress(NotFoundError):  # deleted meanwhile: a typed, consistent answer
                        store.path(child)
        except NotFoundError:
            continue
        except Exception as exc:  # anything untyped is a failure of the store
            problems.append(f"{type(exc).__name__}: {exc}")
    store.close()
    out.put((mine, problems))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_concurrent_writers_and_readers(tmp_path: Path) -> None:
    from conformance.store.fsck import fsck_dir

    data = tmp_path / "data"
    store = open_store("files", data, rng=random.Random(0), fsync=False)
    root = store.create_root("sys")
    store.close()
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_work, args=(str(data), root, seed, queue)) for seed in range(1, WORKERS + 1)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    problems = [problem for _, found in results for problem in found]
    assert problems == []
    kept = {node for mine, _ in results for node in mine}
    store = open_store("files", data, fsync=False)
    for node in kept:  # every acknowledged append its writer did not delete is there
        assert store.get(node).id == node
    store.close()
    assert fsck_dir(data).violations == []
