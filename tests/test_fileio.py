"""Parsed once, written atomically: the parse cache follows the file, and concurrent writers of one
file never share a temp name or leave half a file."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from conformance.fileio import atomic_write, memoized
from conformance.report.matrix import Matrix
from tests.report.sample import sample_matrix


def test_a_file_is_parsed_once_per_version(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("a: 1\n")
    calls: list[str] = []

    def build(p: Path) -> str:
        calls.append(p.read_text())
        return p.read_text()

    assert memoized("t", path, build) == memoized("t", path, build) == "a: 1\n"
    assert len(calls) == 1
    time.sleep(0.01)
    path.write_text("a: 22\n")  # a new version (size and mtime change)
    assert memoized("t", path, build) == "a: 22\n"
    assert len(calls) == 2


def test_concurrent_writers_of_one_report_leave_one_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "matrix.json"
    matrices = [sample_matrix(stream_text_openai=v) for v in ("pass", "fail", "error", "missing")]
    errors: list[BaseException] = []

    def write(m: Matrix) -> None:
        try:
            for _ in range(25):
                m.save(target)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(m,)) for m in matrices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    written = json.loads(target.read_text())  # whole, and one of the four
    assert Matrix.model_validate(written) in matrices
    assert [p.name for p in target.parent.iterdir()] == ["matrix.json"]  # no temp file left behind


def test_atomic_write_keeps_the_old_file_when_the_write_fails(tmp_path: Path) -> None:
    target = tmp_path / "c.yaml"
    atomic_write(target, "old\n")

    class Boom(Exception):
        pass

    class Exploding(str):
        def encode(self, *args: object, **kwargs: object) -> bytes:
            raise Boom

    with pytest.raises(Boom):
        atomic_write(target, Exploding("new\n"))
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["c.yaml"]
