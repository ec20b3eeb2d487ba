"""The TypeScript libraries' count table of docs/runtimes.md, recomputed from fresh runs.

    python scripts/typescript_counts.py            # print the table
    python scripts/typescript_counts.py --check    # exit 1 when docs/runtimes.md says otherwise
    python scripts/typescript_counts.py --write    # rewrite the table in docs/runtimes.md

Each adapter of examples/typescript (installed with `npm ci` there) runs as `conformance run
--runtime-cmd "node <adapter>"` runs it: Node processes speaking the runtime protocol v1, judged on
every capability they declare (`encode`, `decode`, `turn` against the loopback), and, as
`DecodeOnly`, on their reading of responses alone. Cells (provider × feature) as matrix.json counts
them, for the versions of examples/typescript/package-lock.json. A run with turns lasts about its
longest wait (30 s). tests/examples/test_typescript.py runs --check.
"""

from __future__ import annotations

import shlex
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # count_table, beside this script
import count_cache
from count_table import CountTable, Row, count_cells

ROOT = Path(__file__).resolve().parents[1]
TS = ROOT / "examples" / "typescript"
PROVIDERS = ("openai", "anthropic", "gemini")
TABLE = CountTable("<!-- typescript-counts:begin -->", "<!-- typescript-counts:end -->", "provider")


@dataclass(frozen=True)
class Run:
    program: str
    decode_only: bool


RUNS: dict[str, Run] = {
    "pi-ai": Run("pi_ai.mjs", decode_only=False),
    "pi-ai (decode only)": Run("pi_ai.mjs", decode_only=True),
    "ai-sdk": Run("ai_sdk.mjs", decode_only=False),
    "ai-sdk (decode only)": Run("ai_sdk.mjs", decode_only=True),
}


def count(label: str) -> list[Row]:
    """(runtime label, provider, cell verdict counts) of one fresh run (read from scripts/count_cache.py's
    cache when the caller turned it on and no input changed)."""
    if not count_cache.enabled():
        return _count(label)
    rows = count_cache.stored(
        f"typescript_counts {label}", lambda: [[p, dict(n)] for _, p, n in _count(label)], node=True
    )
    return [(label, provider, Counter(counts)) for provider, counts in rows]


def _count(label: str) -> list[Row]:
    from conformance.adapters import DecodeOnly
    from conformance.runtime.process import ProcessRuntime

    run = RUNS[label]
    program = ProcessRuntime(f"node {shlex.quote(str(TS / run.program))}")
    runtime: Any = DecodeOnly(program) if run.decode_only else program
    try:
        return count_cells(label, runtime, runtime.name, {p: (p,) for p in PROVIDERS})
    finally:
        program.close()


render, documented_row = TABLE.render, TABLE.documented_row


def main(argv: list[str] | None = None) -> int:
    return TABLE.main(argv, (__doc__ or "").splitlines()[0], lambda: [row for label in RUNS for row in count(label)])


if __name__ == "__main__":
    raise SystemExit(main())
