"""`conformance report`: the HTML compatibility report from a matrix.json (and the release gate)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console


def add_parser(sub: Any) -> None:
    p = sub.add_parser("report", help="write the HTML report (index.html) from a matrix.json")
    p.add_argument("--input", default="reports/matrix.json", help="the run to render (default: reports/matrix.json)")
    p.add_argument("--previous", help="an earlier matrix.json: cells that got worse are flagged")
    p.add_argument("--out", help="directory for index.html (default: reports/)")
    p.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="the release gate: exit 1 when a scenario × provider result regressed against --previous",
    )
    p.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="with --previous: how regressions and improvements are printed (github: workflow annotations)",
    )
    p.add_argument(
        "--root",
        metavar="DIR",
        help="the project root the run read, relative to the working directory: annotations and the summary name "
        "scenario files under it (e.g. conformance/scenarios/…; default: as the run recorded them, from its root)",
    )
    p.add_argument(
        "--summary",
        metavar="FILE",
        help='with --previous: append the gate as Markdown to FILE (e.g. "$GITHUB_STEP_SUMMARY")',
    )
    p.add_argument(
        "--compare",
        nargs="+",
        metavar="MATRIX",
        help="runtimes side by side: two or more matrix.json files in one table "
        "(writes reports/compare.html, or DIR/index.html with --out DIR)",
    )
    p.add_argument("--fail-on-disagreement", action="store_true", help="with --compare: exit 1 when runtimes disagree")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.compare:
        from conformance.commands.compare import run_compare

        return run_compare(args)
    from conformance.exceptions import InputError
    from conformance.report.html import write_html
    from conformance.report.matrix import Matrix

    matrix = Matrix.load(Path(args.input))
    previous = Matrix.load(Path(args.previous)) if args.previous else None
    if args.fail_on_regression and previous is None:
        raise InputError("needs --previous to compare against", where="--fail-on-regression")
    if args.fail_on_disagreement:
        raise InputError("needs --compare", where="--fail-on-disagreement")
    path = write_html(matrix, Path(args.out or "reports"), previous=previous)
    if previous is None:
        Console().print(f"wrote {path}", markup=False, highlight=False)
        return 0
    return _gate(args, previous, matrix, path)


def _common_providers(gate: Any, previous: Any, matrix: Any) -> Any:
    """Runs over different provider sets: a warning naming the difference, and the gate over the
    providers both runs have (a provider left out of a run is no regression of every one of its rows)."""
    from dataclasses import replace

    before, after = set(previous.providers), set(matrix.providers)
    if before == after:
        return gate
    gone, new = ", ".join(sorted(before - after)) or "none", ", ".join(sorted(after - before)) or "none"
    Console(stderr=True).print(
        f"warning: the runs cover different providers (only in --previous: {gone}; only in --input: {new}); "
        f"compared over the {len(before & after)} providers both have",
        markup=False,
        highlight=False,
    )
    both = before & after

    def keep(changes: list[Any]) -> list[Any]:
        return [c for c in changes if c.provider in both]

    return replace(
        gate,
        regressions=keep(gate.regressions),
        improvements=keep(gate.improvements),
        still_failing=keep(gate.still_failing),
    )


def _gate(args: argparse.Namespace, previous: Any, matrix: Any, path: Path) -> int:
    """Print the per-scenario changes in the chosen format; exit 1 on a regression when asked."""
    from conformance.report.gate import (
        compare_runs,
        github_annotations,
        render_json,
        render_markdown,
        render_text,
        scenario_paths,
    )

    gate = _common_providers(compare_runs(previous, matrix), previous, matrix)
    if args.summary:
        with Path(args.summary).open("a", encoding="utf-8") as fh:
            fh.write(render_markdown(gate, base=args.previous))
    if args.format == "json":
        sys.stdout.write(render_json(gate) + "\n")
    elif args.format == "github":
        paths = scenario_paths(matrix)
        if args.root:  # the annotation lands on the file as the repository names it
            paths = {k: v if Path(v).is_absolute() else (Path(args.root) / v).as_posix() for k, v in paths.items()}
        for line in github_annotations(gate, paths):
            sys.stdout.write(line + "\n")
    else:
        console = Console()
        console.print(f"wrote {path}", markup=False, highlight=False)
        for line in render_text(gate):
            style = "bold red" if line.startswith("regressed") else "green" if line.startswith("improved") else None
            console.print(line, markup=False, highlight=False, style=style)
    return 1 if gate.regressions and args.fail_on_regression else 0
