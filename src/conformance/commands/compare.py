"""`conformance report --compare A/matrix.json B/matrix.json …`: runtimes side by side.

Prints the comparison table and writes the HTML page: `reports/compare.html` by default (so the
last run's `reports/index.html` stays), or `DIR/index.html` when `--out DIR` is given.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console


def run_compare(args: argparse.Namespace) -> int:
    from conformance.exceptions import InputError
    from conformance.report.compare import compare
    from conformance.report.compare_html import write_compare_html
    from conformance.report.compare_terminal import CompareTable

    for flag, given in (("--previous", args.previous), ("--fail-on-regression", args.fail_on_regression)):
        if given:
            raise InputError("compares two runs of one runtime; it does not combine with --compare", where=flag)
    if len(args.compare) < 2:
        raise InputError("needs at least two matrix.json files to compare", where="--compare")
    cmp = compare([Path(p) for p in args.compare])
    target = Path(args.out) / "index.html" if args.out else Path("reports") / "compare.html"
    path = write_compare_html(cmp, target)
    console = Console()
    console.print(CompareTable(cmp))
    console.print(f"wrote {path}", highlight=False, markup=False)
    return 1 if args.fail_on_disagreement and cmp.disagreements() else 0
