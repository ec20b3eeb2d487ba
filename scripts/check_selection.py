"""The two test steps of .ci/run select every collected test, each once.

    python scripts/check_selection.py

Collects three times (`--collect-only -q`): the default selection (`pytest`, which deselects the
`full` marker), the full step (`pytest -m full`) and everything (`pytest -m "full or not full"`).
Exits 1 when the two steps overlap or their union is not everything, or when an entry of
tests/conftest.py's `FULL` list matches no collected test (a renamed test would silently return to
the default selection).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def collect(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 5):
        sys.exit(f"collection failed ({' '.join(args)}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return {line for line in done.stdout.splitlines() if "::" in line and not line.startswith(" ")}


def main() -> int:
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import FULL

    default = collect()
    full = collect("-m", "full")
    everything = collect("-m", "full or not full")
    problems = [f"in both steps: {nodeid}" for nodeid in sorted(default & full)]
    problems += [f"in neither step: {nodeid}" for nodeid in sorted(everything - default - full)]
    problems += [
        f"FULL entry matches no test: {prefix}" for prefix in FULL if not any(n.startswith(prefix) for n in full)
    ]
    for line in problems:
        print(line)
    print(f"{len(default)} tests by default + {len(full)} by -m full = {len(everything)} collected")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
