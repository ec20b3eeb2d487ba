"""The harness's peak memory with each hostile runtime program (`hostile_program.py`), one run each.

Run as `python -m tests.runtime.measure_hostile [LIMIT]`: `conformance run` with one decode row of
OpenAI, `--runtime-max-answer LIMIT` (default: the harness's own default, 16 MiB), against each
hostile program in turn, each output just above its limit or endless. Prints one JSON object: per
program, the exit code, the row's verdict and reason, and the harness's peak resident memory in MB
(`VmHWM`, reset before each run through `/proc/self/clear_refs`), and the processes of the run's
process groups left alive (none expected).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from conformance.cli import main
from conformance.runtime.program import DEFAULT_LIMITS

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = Path(__file__).with_name("hostile_program.py")
ROW = "error_auth"


def modes(limit: int) -> dict[str, int]:
    """Each hostile program, with the size of its output."""
    return {
        "stdout-flood": 0,
        "stderr-flood": 0,
        "idle-flood": 0,
        "big-line": limit + 1024,
        "deep": limit // 2 - 100,
        "big-result": limit // 2 - 100,
        "orphan": 0,
        "orphan-alive": 0,
    }


def peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def sleepers() -> list[int]:
    """The hostile programs' grandchildren (`sleep 601`) started by this measure, still alive 2 s after
    the run (a killed process takes a moment to go)."""
    deadline = time.monotonic() + 2
    while (found := _sleepers()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def _sleepers() -> list[int]:
    mine = []
    for status in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if status.read_bytes().split(b"\0")[:2] == [b"sleep", b"601"]:
                pid = int(status.parent.name)
                env = (status.parent / "environ").read_bytes()
                if f"MEASURE_RUN={os.getpid()}".encode() in env:
                    mine.append(pid)
    return mine


def measure(limit: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    os.environ["MEASURE_RUN"] = str(os.getpid())
    for mode, size in modes(limit).items():
        os.environ["HOSTILE"], os.environ["SIZE"] = mode, str(size)
        with contextlib.suppress(OSError):
            Path("/proc/self/clear_refs").write_text("5")
        with tempfile.TemporaryDirectory() as tmp:
            args = ["run", "--runtime-cmd", f"{sys.executable} {PROGRAM}", "--runtime-timeout", "10"]
            args += ["--runtime-max-answer", str(limit), "--provider", "openai", "--scenario", ROW, "--no-real"]
            args += ["--root", str(ROOT), "--out", tmp, "--no-html", "--no-progress", "--jobs", "1"]
            code = main(args)
            rows = [r for c in json.loads(Path(tmp, "matrix.json").read_text())["cells"] for r in c["results"]]
        out[mode] = {
            "exit": code,
            "verdict": rows[0]["verdict"],
            "reason": rows[0]["reason"][:160],
            "peak_mb": round(peak_mb(), 1),
            "left": sleepers(),
        }
    return out


if __name__ == "__main__":
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_LIMITS.line_bytes
    print(json.dumps(measure(limit), indent=1))
