"""The long fuzzing campaign: every target of tests/fuzz in its own pytest process under
``--hypothesis-profile=fuzz`` (so peak memory is per target), one after the other, then a table.

    nice python -m tests.fuzz.campaign [--out reports/fuzz.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def targets() -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/fuzz", "--collect-only", "-q", "-p", "no:randomly"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in out.splitlines() if "::" in line]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="reports/fuzz.jsonl")
    args = parser.parse_args()
    out = ROOT / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    env = {**os.environ, "FUZZ_STATS": str(out)}
    failed = []
    for node in targets():
        start = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", node, "-q", "-p", "no:randomly", "--hypothesis-profile=fuzz", "-x"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        took = time.monotonic() - start
        print(f"{node}: exit {done.returncode} in {took:.0f} s", flush=True)
        if done.returncode != 0:
            failed.append(node)
            (ROOT / "reports" / "fuzz-failures.txt").open("a").write(done.stdout[-20000:] + "\n")
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    print("| target | inputs | typed errors | untyped | slowest input | peak RSS |")
    print("| --- | ---: | ---: | ---: | --- | ---: |")
    for r in rows:
        print(
            f"| {r['target']} | {r['inputs']:,} | {r['typed']:,} | {r['untyped']} | "
            f"{r['slowest_s'] * 1000:.1f} ms ({r['slowest_size']:,} B) | {r['peak_rss_mib']:.0f} MiB |"
        )
    print(f"total inputs {sum(r['inputs'] for r in rows):,}; failed targets: {failed or 'none'}")


if __name__ == "__main__":
    main()
