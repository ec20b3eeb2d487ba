"""A writer killed at every step of every operation: after `fsck --repair` nothing acknowledged is
lost, no violation is left, and the tree is the one before the operation or the one after it.

The kill is real: the operation runs in a forked child whose write layer calls `os._exit` at the
N-th step (a temp write, a rename, a link, an unlink or a directory sync), so no cleanup code of
the writer runs — as with `kill -9`."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.store import Store, tree_json
from conformance.store.fsck import fsck_dir, repair_dir
from conformance.store.layout import WriteLayer
from tests.store.helpers import make_store
from tests.store.test_errors import OPS, populated

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork to kill a writer mid-operation")


class CountingLayer(WriteLayer):
    """Counts the steps of an operation; with `die_at`, the process ends at that step."""

    def __init__(self, die_at: int | None = None) -> None:
        super().__init__(fsync=False)
        self.steps, self.die_at = 0, die_at

    def _step(self) -> None:
        self.steps += 1
        if self.steps == self.die_at:
            os._exit(0)

    def write_temp(self, target: Path, data: bytes) -> Path:
        self._step()
        return super().write_temp(target, data)

    def replace(self, src: Path, dst: Path) -> None:
        self._step()
        super().replace(src, dst)

    def link(self, src: Path, dst: Path) -> None:
        self._step()
        super().link(src, dst)

    def unlink(self, path: Path) -> None:
        self._step()
        super().unlink(path)

    def sync_dir(self, path: Path) -> None:
        self._step()


def _baseline(tmp: Path) -> tuple[Path, dict[str, str]]:
    store, names = populated(tmp)
    store.close()
    return tmp / "data", names


def _tree(data: Path) -> dict[str, Any]:
    store = make_store("files", data)
    try:
        return tree_json(store)
    finally:
        store.close()


def _run(data: Path, names: dict[str, str], op: Callable[[Store, dict[str, str]], Any], layer: WriteLayer) -> None:
    store = make_store("files", data, seed=99, layer=layer)
    op(store, names)


def _killed_at(data: Path, names: dict[str, str], op: Callable[[Store, dict[str, str]], Any], step: int) -> bool:
    """Run `op` in a child killed at `step`; True when the child died there (False: it finished)."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            _run(data, names, op, CountingLayer(die_at=step))
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


@pytest.mark.parametrize("name", sorted(OPS))
def test_a_writer_killed_at_every_step_loses_nothing_acknowledged(tmp_path: Path, name: str) -> None:
    op = OPS[name]
    base, names = _baseline(tmp_path / "base")
    before = _tree(base)
    after_dir = tmp_path / "after"
    shutil.copytree(base, after_dir)
    counter = CountingLayer()
    _run(after_dir, names, op, counter)
    after = _tree(after_dir)
    assert counter.steps > 3
    for step in range(1, counter.steps + 1):
        data = tmp_path / f"kill{step}"
        shutil.copytree(base, data)
        assert _killed_at(data, names, op, step), f"{name}: the child did not reach step {step}"
        report = repair_dir(data)
        assert report.violations == [], f"{name} killed at step {step}: {report.violations}"
        assert fsck_dir(data).violations == []
        assert _tree(data) in (before, after), f"{name} killed at step {step}: neither before nor after"
        shutil.rmtree(data)


@pytest.mark.parametrize("name", ["append", "delete", "split"])
def test_the_next_reader_or_writer_rolls_an_interrupted_operation_back(tmp_path: Path, name: str) -> None:
    op = OPS[name]
    base, names = _baseline(tmp_path / "base")
    before = _tree(base)
    counter = CountingLayer()
    shutil.copytree(base, tmp_path / "probe")
    _run(tmp_path / "probe", names, op, counter)
    interrupted = 0
    for step in range(1, counter.steps + 1):
        data = tmp_path / f"kill{step}"
        shutil.copytree(base, data)
        assert _killed_at(data, names, op, step)
        if [v.kind for v in fsck_dir(data).violations] != ["interrupted_operation"]:
            continue  # killed before the intent was written, or after the commit point
        interrupted += 1
        assert _tree(data) == before  # a read takes the lock and rolls the operation back first
        store = make_store("files", data, seed=5)
        store.append(names["t"], {"role": "assistant", "content": "next"})
        store.close()
        assert fsck_dir(data).violations == []
    assert interrupted > 0
