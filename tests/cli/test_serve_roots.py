"""`conformance serve` finds cassettes as the other commands do: `--root`, else the bundled data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conformance.cli import main


def _first_lines(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    command = [sys.executable, "-m", "conformance.cli", "serve", "--port", "0", *args]
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        if not first:
            return proc.communicate(timeout=60)[1]
        return first + proc.stdout.readline()
    finally:
        proc.terminate()
        proc.communicate(timeout=60)


def test_serve_in_an_empty_folder_serves_the_bundled_cassettes(tmp_path: Path) -> None:
    out = _first_lines(tmp_path)
    assert "conformance emulator on http://127.0.0.1:" in out, out


def test_serve_reads_the_roots_cassettes(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path / "proj")]) == 0
    out = _first_lines(tmp_path, "--root", "proj/conformance")
    assert "conformance emulator on http://127.0.0.1:" in out and "anthropic" in out, out
