"""`pytest -m provider` over the bundled matrix: serial against `-n auto`.

Prints the median wall time of each and their ratio (below 1: -n auto is faster). Run from the
repository: `python benchmarks/plugin_xdist.py [runs] [provider ...]` (no provider: every one).
With `XDIST_WORKERS=N` set, `-n N` (that many xdist workers, whatever the run) is timed too.

For a session of conformance checks alone, `-n auto` runs a large run's checks ahead in forked
processes and a small one in this process (`conformance.pytest_workers`); `-n N` starts xdist
workers, each a whole pytest process that imports and collects everything again.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _time(extra: list[str], providers: list[str]) -> float:
    narrow = [f"--conformance-provider={p}" for p in providers]
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-m",
            "provider",
            "-q",
            "-p",
            "no:cacheprovider",
            *narrow,
            *extra,
            "scenarios",
        ],
        cwd=ROOT,
        check=False,
        capture_output=True,
    )
    return time.perf_counter() - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    providers = sys.argv[2:]
    workers = os.environ.get("XDIST_WORKERS")
    serial: list[float] = []
    parallel: list[float] = []
    xdist: list[float] = []
    for _ in range(runs):  # interleaved, so a busy machine weighs on both alike
        serial.append(_time([], providers))
        parallel.append(_time(["-n", "auto"], providers))
        if workers:
            xdist.append(_time(["-n", workers], providers))
    a, b = statistics.median(serial), statistics.median(parallel)
    what = ", ".join(providers) or "every provider"
    print(f"pytest -m provider ({what}), serial:  median {a:.2f} s over {runs} runs")
    print(f"pytest -m provider ({what}), -n auto: median {b:.2f} s")
    print(f"ratio -n auto / serial: {b / a:.2f}")
    if xdist:
        c = statistics.median(xdist)
        print(f"pytest -m provider ({what}), -n {workers}: median {c:.2f} s (xdist workers), ratio {c / a:.2f}")


if __name__ == "__main__":
    main()
