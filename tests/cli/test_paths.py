"""Every path option of every command reads from the working directory, and "wrote …" names the real path."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main


def test_run_out_is_relative_to_the_working_directory_not_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path)]) == 0
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    args = ["run", "--root", "conformance", "--runtime", "my_runtime:make", "--provider", "anthropic"]
    code = main([*args, "--scenario", "my_greeting", "--no-progress", "--no-real", "--out", "reports/current"])
    assert code == 0
    out = capsys.readouterr().out
    assert (tmp_path / "reports" / "current" / "matrix.json").is_file()
    assert (tmp_path / "reports" / "current" / "index.html").is_file()
    assert not (tmp_path / "conformance" / "reports").exists()
    assert "wrote reports/current/matrix.json" in out
    assert "wrote reports/current/index.html" in out
    # the next commands read what `run` wrote, from the same place
    assert main(["report", "--input", "reports/current/matrix.json", "--out", "reports/current"]) == 0
    assert main(["publish", "reports", "--out", "site"]) in (0,)
    assert (tmp_path / "site" / "index.html").is_file()
