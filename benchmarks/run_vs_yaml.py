"""`conformance run` on the bundled matrix against one pure-Python YAML pass over its data files.

Times (median of `--repeat` runs, each in a fresh process) loading every `scenarios/`, `cassettes/`
and `corpus/` YAML file with `yaml.SafeLoader`, then `conformance run --no-progress` over the
bundled matrix (its real traffic, the corpus's generation calls, included), and prints both
medians and their ratio (the budget is 4x). Run:

    python benchmarks/run_vs_yaml.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
YAML_PASS = (
    "import pathlib, yaml\n"
    "for d in ('scenarios', 'cassettes', 'corpus'):\n"
    "    for p in sorted(pathlib.Path(d).rglob('*.yaml')):\n"
    "        yaml.load(p.read_text(encoding='utf-8'), Loader=yaml.SafeLoader)\n"
)


def _timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    yaml_s = statistics.median(_timed([sys.executable, "-c", YAML_PASS]) for _ in range(args.repeat))
    with tempfile.TemporaryDirectory() as out:
        run = [str(Path(sys.executable).with_name("conformance")), "run", "--no-progress", "--out", out]
        run_s = statistics.median(_timed(run) for _ in range(args.repeat))
    print(f"yaml pass (SafeLoader, pure Python): median {yaml_s:.2f} s")
    print(f"conformance run --no-progress:       median {run_s:.2f} s")
    print(f"ratio run / yaml: {run_s / yaml_s:.2f} (budget 4.00)")


if __name__ == "__main__":
    main()
