"""Store fixtures' helpers: deterministic stores and byte-exact snapshots of what is on disk."""

from __future__ import annotations

import random
from itertools import count
from pathlib import Path
from typing import Any

from conformance.store import Store, open_store, tree_json
from conformance.store.files import FileBackend
from conformance.store.layout import WriteLayer


def make_store(
    backend: str, where: Path, *, seed: int = 7, max_depth: int = 10_000, layer: WriteLayer | None = None
) -> Store:
    ticks = count()
    store = open_store(
        backend, where, rng=random.Random(seed), clock=lambda: float(next(ticks)), max_depth=max_depth, fsync=False
    )
    if layer is not None and isinstance(store.backend, FileBackend):
        store.backend.layer = layer
    return store


def location(backend: str, tmp: Path) -> Path:
    return tmp / "data" if backend == "files" else tmp / "store.sqlite"


def disk(path: Path) -> dict[str, bytes]:
    """Every file under a data directory (locks aside), by relative path."""
    if path.is_file():
        return {path.name: path.read_bytes()}
    return {
        p.relative_to(path).as_posix(): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def snapshot(store: Store) -> dict[str, Any]:
    return tree_json(store)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def call(call_id: str, name: str = "f") -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "tool_call", "id": call_id, "name": name, "arguments": {}}]}


def result(call_id: str, text: str = "ok") -> dict[str, Any]:
    return {"role": "tool_result", "tool_call_id": call_id, "content": text}
