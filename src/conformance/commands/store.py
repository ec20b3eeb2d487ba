"""`conformance store fsck DIR [--repair]`: check (and repair) a conversation-tree store.

DIR is a data directory (file backend) or a database file (SQLite backend). Exit 0 when clean,
1 when violations remain, 2 when DIR cannot be read (one line naming it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from conformance.exceptions import InputError


def add_parser(sub: Any) -> None:
    p = sub.add_parser("store", help="check and repair a conversation-tree store")
    store_sub = p.add_subparsers(dest="store_command", required=True, metavar="STORE_COMMAND")
    f = store_sub.add_parser("fsck", help="list every violation with where it is (exit 1 when any)")
    f.add_argument("path", metavar="DIR", help="data directory (files backend) or database file (sqlite)")
    f.add_argument(
        "--repair",
        action="store_true",
        help="rebuild roots.json and the structure cache; move unreadable files to quarantine/ (nothing is deleted)",
    )
    f.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    f.set_defaults(func=run_fsck)


def run_fsck(args: argparse.Namespace) -> int:
    from conformance.store.fsck import fsck_dir, fsck_sqlite, identify, repair_dir

    path = Path(args.path)
    if not path.exists():
        raise InputError("no such directory or database file", where=str(path))
    try:
        kind, where = identify(path)
        if args.repair and kind != "files":
            raise InputError(
                "--repair mends a data directory of the files backend; this is a SQLite store", where=str(where)
            )
        check = repair_dir if args.repair else (fsck_sqlite if kind == "sqlite" else fsck_dir)
        report = check(where)
    except OSError as exc:
        raise InputError(f"cannot read the store ({exc.strerror or exc})", where=str(path)) from None
    if args.json:
        out = {"violations": [v.to_json() for v in report.violations], "actions": report.actions}
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    else:
        for action in report.actions:
            sys.stdout.write(f"repaired: {action}\n")
        for v in report.violations:
            sys.stdout.write(f"{v.where}: {v.kind}: {v.detail}\n")
        n = len(report.violations)
        sys.stdout.write(f"{n} violation{'s' if n != 1 else ''}\n" if n else "clean\n")
    return 1 if report.violations else 0
