"""`conformance lint [PATH ...]`: cassette hygiene, each finding with file and line (exit 1 on any)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from conformance.commands.roots import add_root_option, resolve_roots


def add_parser(sub: Any) -> None:
    p = sub.add_parser("lint", help="check cassettes for secrets, unplayed or unused interactions, malformed files")
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="cassette files or directories (default: the top root's cassettes/)",
    )
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
    findings = lint(paths, roots.top, roots.layers)
    for finding in findings:
        print(finding)
    count = sum(len(list(p.rglob("*.yaml"))) if p.is_dir() else 1 for p in paths)
    print(f"{len(findings)} finding{'s' if len(findings) != 1 else ''} in {count} cassette{'s' if count != 1 else ''}")
    return 1 if findings else 0
