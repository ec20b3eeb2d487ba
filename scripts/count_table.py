"""The count tables of docs/runtimes.md: one fresh run's cells counted per verdict, rendered as a
Markdown table, read back from between a table's markers, rewritten there, and the `--check` /
`--write` command line around them. scripts/runtime_counts.py (the Python adapters) and
scripts/typescript_counts.py (the TypeScript ones) each describe their runs and use these."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "runtimes.md"
COLUMNS = ("pass", "fail", "error", "policy", "not_offered", "skipped", "unsupported", "missing")

Row = tuple[str, str, Counter[str]]
"""(runtime label, provider or provider group, cell verdict counts)."""


def count_cells(
    label: str, runtime: Any, name: str, groups: Mapping[str, tuple[str, ...]], results_out: list[Any] | None = None
) -> list[Row]:
    """Run every scenario through `runtime` on the providers of `groups`; count its cells (provider ×
    feature, as matrix.json counts them) per group. The scenario results go to `results_out` when given."""
    from conformance.harness import HarnessContext, run_all
    from conformance.harness.run import build_matrix
    from conformance.scenarios import load_scenarios

    providers = [p for members in groups.values() for p in members]
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=name)
    results = run_all(load_scenarios(ROOT / "scenarios"), providers, ctx)
    matrix = build_matrix(results, providers, ctx, scenario_dir=ROOT / "scenarios")
    if results_out is not None:
        results_out.extend(results)
    return [
        (label, group, Counter(c.verdict for c in matrix.cells if c.provider in members))
        for group, members in groups.items()
    ]


@dataclass(frozen=True)
class CountTable:
    """One table of docs/runtimes.md, between its `begin` and `end` markers."""

    begin: str
    end: str
    second_column: str
    """The header of the column after the runtime's label (`provider`, `providers`)."""

    def render(self, rows: list[Row]) -> str:
        head = f"| runtime | {self.second_column} | " + " | ".join(c.replace("_", " ") for c in COLUMNS) + " |"
        rule = "|---|---|" + "---:|" * len(COLUMNS)
        body = [f"| {label} | {group} | " + " | ".join(str(n[c]) for c in COLUMNS) + " |" for label, group, n in rows]
        return "\n".join([head, rule, *body])

    def documented(self) -> str:
        """The table between the markers of docs/runtimes.md."""
        text = DOC.read_text(encoding="utf-8")
        return text[text.index(self.begin) + len(self.begin) : text.index(self.end)].strip()

    def documented_row(self, label: str, group: str) -> str | None:
        """The documented table's line of one runtime label and provider (group)."""
        rows = [line for line in self.documented().splitlines() if line.startswith(f"| {label} | {group} |")]
        return rows[0] if rows else None

    def write(self, table: str) -> None:
        text = DOC.read_text(encoding="utf-8")
        start, end = text.index(self.begin) + len(self.begin), text.index(self.end)
        DOC.write_text(text[:start] + "\n" + table + "\n" + text[end:], encoding="utf-8")

    def main(self, argv: list[str] | None, description: str, rows: Callable[[], list[Row]]) -> int:
        """Print the fresh table; `--check`: exit 1 when the documented one differs; `--write`: rewrite it."""
        parser = argparse.ArgumentParser(description=description)
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--check", action="store_true", help="exit 1 when docs/runtimes.md's table differs")
        mode.add_argument("--write", action="store_true", help="rewrite the table in docs/runtimes.md")
        args = parser.parse_args(argv)
        table = self.render(rows())
        if args.write:
            self.write(table)
        elif args.check and table != self.documented():
            sys.stdout.write(f"docs/runtimes.md's table ({self.begin}) drifted; fresh runs give:\n{table}\n")
            return 1
        elif not args.check:
            sys.stdout.write(table + "\n")
        return 0
