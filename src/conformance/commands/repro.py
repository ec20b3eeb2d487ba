"""`conformance repro SCENARIO --provider P --runtime R [--out DIR]`: one row as a standalone script.

The script (`harness.repro`) serves the row's recorded answer on a loopback socket, calls the
library as the runtime's adapter does, and asserts the expected value: exit 1 with the row's
difference, 0 when the library agrees. It needs the library alone. Exit 2 on bad input (an unknown
scenario, provider or runtime, a row that does not apply, a runtime that offers no reproduction)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "repro", help="write one row as a standalone script that calls the library alone and asserts the expected value"
    )
    p.add_argument("scenario", metavar="SCENARIO", help="the scenario id")
    p.add_argument("--provider", required=True, help="the row's provider")
    p.add_argument("--runtime", required=True, help="runtime as package.module:factory (one that offers reproduction)")
    p.add_argument("--out", default="repro", help="where the script is written (default: repro/)")
    from conformance.commands.roots import add_root_option

    add_root_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from conformance.capabilities import get_profile
    from conformance.commands.roots import resolve_roots
    from conformance.exceptions import InputError
    from conformance.harness import HarnessContext
    from conformance.harness.repro import module_version, offered, render, run_row, script_name, write
    from conformance.runtime.loading import load_runtime
    from conformance.scenarios import load_layered

    get_profile(args.provider)  # an unknown provider names the known ones
    roots = resolve_roots(args.root)
    scenarios = load_layered(roots.layers or (roots.top,), only=[args.scenario])
    scenario = scenarios[0]
    if not scenario.applies(args.provider):
        raise InputError(f"scenario {scenario.id} has no row for {args.provider}", where="--provider")
    runtime, name = load_runtime(args.runtime)
    try:
        offer = offered(runtime, name)
        ctx = HarnessContext(root=roots.top, runtime=runtime, runtime_name=name, layers=roots.layers)
        row = run_row(ctx, scenario, args.provider)
        script = render(row, offer, runtime_spec=args.runtime, runtime_name=name, version=module_version(runtime))
    finally:
        close = getattr(runtime, "close", None)
        if callable(close):
            close()
    path = write(script, Path(args.out), script_name(name, scenario.id, args.provider))
    verdict = row.result.verdict
    print(f"wrote {path} (the row: {verdict}; the script exits {1 if verdict == 'fail' else 0} on this library)")
    return 0
