"""Run a generated script against a store, recording every outcome."""

from __future__ import annotations

from typing import Any

from conformance.store import Store, tree_json
from conformance.store.errors import StoreError


def run(store: Store, root_system: str, script: list[tuple[Any, ...]], *, check: Any = None) -> list[Any]:
    """Apply each operation; `check(store, before, outcome)` is called after each one."""
    first = store.create_root(root_system)
    known = [first, store.append(first, {"role": "user", "content": "the first question"})]
    trace: list[Any] = []
    for op in script:
        before = tree_json(store) if check is not None else None
        name = op[0]
        node = known[-1 - op[1] % len(known)] if len(op) > 1 else None
        try:
            if name == "append":
                out: Any = store.append(node, op[2])
                known.append(out)
            elif name == "edit":
                out = store.edit(node, op[2])
                known.append(out[0])
            elif name == "split":
                out = store.split(node, op[2], op[3])
                known.append(out)
            elif name == "delete":
                out = store.delete(node)
            elif name == "reparent":
                out = store.reparent(node, known[-1 - op[2] % len(known)])
            elif name == "bookmark":
                root = store.get(node).root
                out = store.add_bookmark(root, op[2], node)
            else:
                out = store.create_root("another conversation")
                known.append(out)
            outcome: Any = ("ok", out)
        except StoreError as exc:
            outcome = ("error", exc.kind, exc.where)
        trace.append(outcome)
        if check is not None:
            check(store, before, outcome)
    return trace
