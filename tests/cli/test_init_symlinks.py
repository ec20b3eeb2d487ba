"""`conformance init` never writes through a symlink or a symlinked directory, and never replaces
anything — a dangling symlink included — without `--force`; each refusal is one line naming the path,
and nothing is written when one is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    place = tmp_path / "outside"
    place.mkdir()
    return place


def _refused(capsys: pytest.CaptureFixture[str], *args: str, words: str) -> None:
    assert main(["init", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err and "Traceback" not in err, err


@pytest.mark.parametrize("force", [[], ["--force"]])
@pytest.mark.parametrize("linked", ["conformance", ".github", "conformance/scenarios"])
def test_a_symlinked_directory_is_never_written_through(
    linked: str, force: list[str], tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proj = tmp_path / "proj"
    (proj / linked).parent.mkdir(parents=True)
    (proj / linked).symlink_to(outside, target_is_directory=True)
    _refused(capsys, str(proj), "--ci", "github", *force, words=linked)
    assert list(outside.iterdir()) == []
    assert not (proj / "pytest.ini").exists()  # nothing written at all


def test_a_dangling_symlink_is_not_replaced_without_force(
    tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "my_runtime.py").symlink_to(outside / "not-there.py")
    _refused(capsys, str(proj), words="my_runtime.py")
    assert (proj / "my_runtime.py").is_symlink() and not (outside / "not-there.py").exists()


def test_with_force_a_symlink_is_replaced_not_written_through(
    tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (outside / "mine.py").write_text("# mine\n")
    (proj / "my_runtime.py").symlink_to(outside / "mine.py")
    (proj / "pytest.ini").symlink_to(outside / "gone.ini")
    assert main(["init", str(proj), "--force"]) == 0
    capsys.readouterr()
    assert (outside / "mine.py").read_text() == "# mine\n" and not (outside / "gone.ini").exists()
    assert not (proj / "my_runtime.py").is_symlink() and "def make" in (proj / "my_runtime.py").read_text()


def test_a_directory_where_a_file_goes_is_one_line_even_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proj = tmp_path / "proj"
    (proj / "pytest.ini").mkdir(parents=True)
    _refused(capsys, str(proj), "--force", words="pytest.ini")
    (proj / "pytest.ini").rmdir()
    (proj / "conformance").write_text("a file where a folder goes\n")
    _refused(capsys, str(proj), "--force", words="conformance")
