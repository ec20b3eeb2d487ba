"""`conformance check SCENARIO_ID --provider P --actual ACTUAL.json`: judge another runtime's output.

For runtimes in any language: point the runtime at `conformance serve`, let it write what it made
of the scenario (the normalized outcome for `decode`, the wire body for `encode`, the repair
output for `repair`), and this prints the verdict and the diff against the scenario's expected
form. Exit 0 on pass, 1 on fail.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from conformance.fileio import read_json


def add_parser(sub: Any) -> None:
    p = sub.add_parser("check", help="judge a runtime's output for one scenario against its expected form")
    p.add_argument("scenario", metavar="SCENARIO_ID")
    p.add_argument("--provider", required=True)
    p.add_argument("--actual", required=True, metavar="ACTUAL.json", help="the runtime's output (normalized form)")
    p.add_argument("--root", default=".", help="project root holding scenarios/ (default: .)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from conformance.capabilities import get_profile
    from conformance.compare import diff, render_diff
    from conformance.exceptions import InputError
    from conformance.harness.checks.common import canonical_outcome, expected_outcome
    from conformance.harness.checks.transcript import REPAIR_IGNORE
    from conformance.scenarios import load_scenarios

    get_profile(args.provider)
    root = Path(args.root)
    (scenario,) = load_scenarios(root / "scenarios", only=[args.scenario])
    actual = read_json(Path(args.actual))
    entry = scenario.entry(args.provider)
    if entry is not None and entry.unsupported:
        print(f"unsupported: {entry.unsupported}")
        return 0
    ignore: tuple[str, ...] = tuple(scenario.spec.ignore)
    if scenario.check == "decode":
        expected = expected_outcome(scenario, args.provider)
        try:
            actual = canonical_outcome(actual)
        except ValidationError as exc:
            raise InputError(f"not a normalized outcome: {exc.errors()[0]['msg']}", where=args.actual) from None
    elif scenario.check in ("encode", "repair"):
        expected = scenario.expected_for(args.provider)
        if scenario.check == "repair":
            ignore += REPAIR_IGNORE
    else:
        raise InputError(
            f"`check` judges decode, encode and repair scenarios, not {scenario.check}", where=args.scenario
        )
    if expected is None:
        print(f"missing: no expected form for {args.provider}")
        return 1
    entries = diff(expected, actual, ignore=ignore)
    if entries:
        print(f"fail: {scenario.id}[{args.provider}] — {len(entries)} difference(s) from the expected normalized form")
        print(render_diff(entries))
        print("expected:\n" + json.dumps(expected, indent=2, ensure_ascii=False))
        return 1
    print(f"pass: {scenario.id}[{args.provider}] matches the expected normalized form")
    return 0
