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

import argparse
import shlex
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TS = ROOT / "examples" / "typescript"
DOC = ROOT / "docs" / "runtimes.md"
BEGIN, END = "<!-- typescript-counts:begin -->", "<!-- typescript-counts:end -->"
PROVIDERS = ("openai", "anthropic", "gemini")
COLUMNS = ("pass", "fail", "error", "not_offered", "skipped", "unsupported", "missing")


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


def count(label: str) -> list[tuple[str, str, Counter[str]]]:
    """(runtime label, provider, cell verdict counts) of one fresh run."""
    from conformance.adapters import DecodeOnly
    from conformance.harness import HarnessContext, run_all
    from conformance.harness.run import build_matrix
    from conformance.runtime.process import ProcessRuntime
    from conformance.scenarios import load_scenarios

    run = RUNS[label]
    program = ProcessRuntime(f"node {shlex.quote(str(TS / run.program))}")
    runtime: Any = DecodeOnly(program) if run.decode_only else program
    try:
        ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=runtime.name)
        results = run_all(load_scenarios(ROOT / "scenarios"), list(PROVIDERS), ctx)
        matrix = build_matrix(results, list(PROVIDERS), ctx, scenario_dir=ROOT / "scenarios")
    finally:
        program.close()
    return [(label, p, Counter(c.verdict for c in matrix.cells if c.provider == p)) for p in PROVIDERS]


def render(rows: list[tuple[str, str, Counter[str]]]) -> str:
    head = "| runtime | provider | " + " | ".join(c.replace("_", " ") for c in COLUMNS) + " |"
    rule = "|---|---|" + "---:|" * len(COLUMNS)
    body = [f"| {label} | {p} | " + " | ".join(str(n[c]) for c in COLUMNS) + " |" for label, p, n in rows]
    return "\n".join([head, rule, *body])


def documented() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()


def documented_row(label: str, provider: str) -> str | None:
    rows = [line for line in documented().splitlines() if line.startswith(f"| {label} | {provider} |")]
    return rows[0] if rows else None


def write(table: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOC.write_text(text[:start] + "\n" + table + "\n" + text[end:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when docs/runtimes.md's table differs")
    mode.add_argument("--write", action="store_true", help="rewrite the table in docs/runtimes.md")
    args = parser.parse_args(argv)
    table = render([row for label in RUNS for row in count(label)])
    if args.write:
        write(table)
    elif args.check and table != documented():
        sys.stdout.write(f"docs/runtimes.md's TypeScript counts drifted; fresh runs give:\n{table}\n")
        return 1
    elif not args.check:
        sys.stdout.write(table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
