"""`conformance lint [PATH ...]`: cassette hygiene, each finding with file and line (exit 1 on any).

`conformance lint --realism [PATH ...]`: the authored cassettes' response shapes against the real
recordings of the same column (exit 1 when a column with real recordings is below the threshold).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from conformance.commands.roots import Roots, add_root_option, resolve_roots


def add_parser(sub: Any) -> None:
    p = sub.add_parser("lint", help="check cassettes for secrets, unplayed or unused interactions, malformed files")
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="cassette files or directories (default: the top root's cassettes/)",
    )
    p.add_argument(
        "--realism",
        action="store_true",
        help="compare the authored cassettes' response shapes with real recordings of the same column: "
        "per column the share seen in real traffic or citing a source in meta.sources (exit 1 below 90%%)",
    )
    p.add_argument(
        "--corpus",
        action="append",
        default=None,
        metavar="DIR",
        help="with --realism: a corpus of real recordings (catalog.json); repeatable "
        "(default: the roots' corpus/ folders and the bundled one)",
    )
    p.add_argument("--json", action="store_true", help="with --realism: the comparison as JSON")
    add_root_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from conformance.exceptions import InputError
    from conformance.harness.lint import lint

    roots = resolve_roots(args.root)
    paths = [Path(p) for p in args.paths] if args.paths else [roots.top / "cassettes"]
    for path in paths:
        if not path.exists():
            raise InputError("no such file or directory", where=str(path))
    if args.realism:
        return realism(args, roots, paths)
    findings = lint(paths, roots.top, roots.layers)
    for finding in findings:
        print(finding)
    count = sum(len(list(p.rglob("*.yaml"))) if p.is_dir() else 1 for p in paths)
    print(f"{len(findings)} finding{'s' if len(findings) != 1 else ''} in {count} cassette{'s' if count != 1 else ''}")
    return 1 if findings else 0


def realism(args: argparse.Namespace, roots: Roots, paths: list[Path]) -> int:
    from conformance.data import bundled_root
    from conformance.exceptions import InputError
    from conformance.harness import realism as rz

    if args.corpus:
        corpora = [Path(c) for c in args.corpus]
        for corpus in corpora:
            if not (corpus / "catalog.json").is_file():
                raise InputError("no corpus here (no catalog.json)", where=str(corpus))
    else:
        found = [*(layer / "corpus" for layer in roots.layers or (roots.top,)), bundled_root() / "corpus"]
        corpora = list(dict.fromkeys(c.resolve() for c in found if (c / "catalog.json").is_file()))
    columns = rz.compare(
        rz.authored_files(paths),
        rz.real_shapes(corpora),
        rz.cut_scenarios(roots.top, roots.layers),
        rz.interrupted_scenarios(roots.top, roots.layers),
    )
    if args.json:
        print(json.dumps(rz.to_json(columns), indent=2))
    else:
        for line in rz.report_lines(columns):
            print(line)
    return 0 if all(column.passes for column in columns) else 1
