"""Conversation-tree store benchmark: a 100,000-node tree on the file backend and on SQLite.

The tree is 1,000 branches of 100 turns; each branch forks from a random node of an earlier
branch, so paths are a few hundred nodes deep. It is bulk-loaded in one transaction (not timed),
then each operation is timed on the loaded store, with fsync on as in normal use:

- append: one message below a random node;
- path: root → a random node, the message list a request is built from (O(depth) reads);
- edit (branch): a new content for a random node that has children (adds a sibling);
- cascade delete: a 50-node chain removed by deleting its first node (the chain is added untimed);
- open: a fresh store object's first path (files: the structure cache loaded from structure.json).

Prints the median milliseconds per operation over the repeats, and the mean depth of the paths.

    python benchmarks/store.py [--nodes 100000] [--repeat 101] [--backend files --backend sqlite]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.store import Node, Store, open_store

BRANCH = 100


def build(store: Store, nodes: int, rng: random.Random) -> list[str]:
    """Bulk-load `nodes` nodes in one transaction; returns their ids in creation order."""
    root = store.create_root("You are a benchmark.")
    ids = [root]
    batch: list[Node] = []
    seq = 1
    while len(ids) < nodes:
        parent = ids[rng.randrange(len(ids))] if len(ids) > 1 else root
        for turn in range(min(BRANCH, nodes - len(ids))):
            nid = store.ids.node()
            role = "user" if turn % 2 == 0 else "assistant"
            message = {"role": role, "content": [{"type": "text", "text": f"turn {seq} of the benchmark"}]}
            batch.append(Node(nid, root, parent, seq, message, {"type": "append"}, 0.0, 0.0))
            ids.append(nid)
            parent = nid
            seq += 1
    with store.backend.transaction(root) as tx:
        for node in batch:
            tx.put[node.id] = node
    return ids


def timed(fn: Callable[[], Any], repeat: int) -> float:
    """Median milliseconds of `fn()` over `repeat` calls."""
    samples: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def timed_with(fn: Callable[[str], Any], setup: Callable[[], str], repeat: int) -> float:
    """Median milliseconds of `fn(setup())`, the setup not timed."""
    samples: list[float] = []
    for _ in range(repeat):
        arg = setup()
        start = time.perf_counter()
        fn(arg)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def bench(backend: str, nodes: int, repeat: int) -> dict[str, float]:
    rng = random.Random(20261123)
    with tempfile.TemporaryDirectory(prefix="store-bench-") as tmp:
        where = Path(tmp) / ("data" if backend == "files" else "store.sqlite")
        store = open_store(backend, where, rng=random.Random(1), fsync=False)
        t0 = time.perf_counter()
        ids = build(store, nodes, rng)
        load_s = time.perf_counter() - t0
        store.close()
        store = open_store(backend, where, rng=random.Random(2), fsync=True)
        out: dict[str, float] = {"load_s": load_s}
        out["open_ms"] = timed(lambda: open_store(backend, where).path(ids[-1]), 5)
        depths = [store.depth(rng.choice(ids)) for _ in range(200)]
        out["mean_depth"] = statistics.mean(depths)
        out["append_ms"] = timed(lambda: store.append(rng.choice(ids), {"role": "user", "content": "more"}), repeat)
        out["path_ms"] = timed(lambda: store.path(rng.choice(ids)), repeat)
        inner = [n for n in ids[1:] if store.children(n)][:5000]
        out["edit_branch_ms"] = timed(lambda: store.edit(rng.choice(inner), "an edited turn"), repeat)

        def chain() -> str:
            head = parent = store.append(rng.choice(ids), {"role": "user", "content": "doomed"})
            for i in range(49):
                role = "assistant" if i % 2 == 0 else "user"
                parent = store.append(parent, {"role": role, "content": "doomed"})
            return head

        out["delete_50_ms"] = timed_with(store.delete, chain, max(5, repeat // 10))
        store.close()
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=101)
    parser.add_argument("--backend", action="append", choices=["files", "sqlite"])
    args = parser.parse_args()
    for backend in args.backend or ["files", "sqlite"]:
        r = bench(backend, args.nodes, args.repeat)
        print(
            f"{backend:7} {args.nodes} nodes (bulk load {r['load_s']:.1f} s, mean depth {r['mean_depth']:.0f}): "
            f"append {r['append_ms']:.2f} ms | path {r['path_ms']:.2f} ms | edit (branch) {r['edit_branch_ms']:.2f} ms"
            f" | cascade delete of 50 {r['delete_50_ms']:.2f} ms | open + first path {r['open_ms']:.1f} ms"
        )


if __name__ == "__main__":
    main()
