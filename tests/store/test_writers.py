"""Two store objects on one data directory: each sees the other's writes, and a held lock is a
typed error, not a hang."""

from __future__ import annotations

from pathlib import Path

import pytest
from filelock import FileLock

from conformance.store.errors import StoreError
from conformance.store.files import FileBackend
from tests.store.helpers import assistant, make_store, user


def test_a_second_writer_sees_the_first_writers_changes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    one = make_store("files", data, seed=1)
    two = make_store("files", data, seed=2)
    r = one.create_root("sys")
    u = one.append(r, user("q"))
    assert two.path(u)[-1]["content"][0]["text"] == "q"  # two builds its cache now
    a = one.append(u, assistant("a"))
    assert two.children(u) == [a]  # the generation moved: two's cache is rebuilt
    b = two.append(u, assistant("b"))
    assert one.children(u) == [a, b]
    one.delete(a)
    assert two.children(u) == [b]
    one.close()
    two.close()
    three = make_store("files", data, seed=3)
    assert three.children(u) == [b]


def test_a_held_lock_times_out_with_a_typed_error(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = make_store("files", data)
    r = store.create_root("sys")
    assert isinstance(store.backend, FileBackend)
    store.backend.lock_timeout = 0  # one attempt, no waiting
    with FileLock(data / r / ".lock"), pytest.raises(StoreError) as exc:
        store.append(r, user("blocked"))
    assert (exc.value.kind, exc.value.where) == ("io", str(data / r / ".lock"))
    assert store.children(r) == []
