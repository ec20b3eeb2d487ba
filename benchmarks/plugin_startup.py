"""Start-up cost of the idle pytest plugin: `pytest --co` in a project that did not ask for it.

Prints the median wall time with the plugin and with `-p no:conformance`, and their difference and
ratio. Run: `python benchmarks/plugin_startup.py [runs]`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _time(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        (cwd / "pytest.ini").write_text("[pytest]\n")
        (cwd / "test_x.py").write_text("def test_x():\n    pass\n")
        with_plugin: list[float] = []
        without: list[float] = []
        for _ in range(runs):  # interleaved, so a busy machine weighs on both alike
            with_plugin.append(_time([], cwd))
            without.append(_time(["-p", "no:conformance"], cwd))
    a, b = statistics.median(with_plugin), statistics.median(without)
    print(f"pytest start, idle plugin:     median {a * 1000:.0f} ms over {runs} runs")
    print(f"pytest start, -p no:conformance: median {b * 1000:.0f} ms")
    print(f"plugin cost: {(a - b) * 1000:+.0f} ms, ratio {a / b:.3f}")


if __name__ == "__main__":
    main()
