"""`conformance publish RUNS --out site/`: a static compatibility site from a directory of runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "publish",
        help="build a static site (latest matrix, history per provider and feature, badges, JSON) from runs",
        description="Every matrix.json below RUNS is one run (its folder names it, e.g. RUNS/v1.4.0/matrix.json); "
        "runs are grouped by runtime and ordered by time. The site works from file:// and any static host.",
    )
    p.add_argument("runs", metavar="RUNS", help="a directory holding one matrix.json per release or runtime")
    p.add_argument("--out", default="site", help="where the site is written (default: site/)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from conformance.report.publish import publish

    out = Path(args.out)
    written = publish(Path(args.runs), out)
    pages = sum(1 for p in written if p.suffix == ".html")
    Console().print(
        f"wrote {pages} pages and {len(written) - pages} JSON files to {out}/ (open {out / 'index.html'})",
        markup=False,
        highlight=False,
    )
    return 0
