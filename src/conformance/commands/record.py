"""`conformance record`: record cassettes against live keys (or any base URL)."""

from __future__ import annotations

import argparse
from typing import Any

from conformance.commands.roots import add_root_option, resolve_roots


def add_parser(sub: Any) -> None:
    from conformance.harness.record import RECORD_MODES

    p = sub.add_parser("record", help="record cassettes for a provider (keys from the usual environment variables)")
    p.add_argument("--provider", required=True)
    p.add_argument("--scenario", action="append", help="only this scenario id (repeatable)")
    p.add_argument("--record-mode", default="once", choices=[m for m in RECORD_MODES if m != "none"])
    p.add_argument("--base-url", help="send the requests here instead of the provider (e.g. the emulator)")
    p.add_argument("--record-failing", action="store_true", help="re-record only the cassettes of failing cells")
    p.add_argument(
        "--accept", action="store_true", help="make the recorded outcomes the expected forms (per-provider overrides)"
    )
    p.add_argument(
        "--require-keys",
        action="store_true",
        help="exit 2 naming the missing environment variables when the provider's key is not set (CI record jobs)",
    )
    p.add_argument(
        "--runtime",
        help="runtime judging which cells fail for --record-failing, as package.module:factory (default: reference)",
    )
    p.add_argument(
        "--own",
        action="store_true",
        help="only the scenarios of the last --root itself, not those of the layers under it or the bundled data",
    )
    p.add_argument(
        "--allow-status-change",
        action="store_true",
        help="write a recording whose status class differs from the cassette's (e.g. a 404 over a 200); "
        "without it such a recording is refused and the command exits 1",
    )
    add_root_option(p, writes="cassettes and accepted outcomes")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (shown only on a terminal, not in CI)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from conformance.harness.record import record, recordable
    from conformance.report.progress import progress, wanted
    from conformance.runtime.loading import load_runtime

    roots = resolve_roots(args.root)
    root = roots.writable()
    runtime, runtime_name = load_runtime(args.runtime) if args.runtime else (None, None)
    console = Console(stderr=True)
    enabled = wanted(console, disabled=args.no_progress)
    total = len(recordable(root, args.provider, args.scenario, roots.layers, own=args.own)) if enabled else 0
    with progress(console, total, f"recording {args.provider}", enabled=enabled) as bar:
        report = record(
            root,
            args.provider,
            mode=args.record_mode,
            scenario_ids=args.scenario,
            base_url=args.base_url,
            only_failing=args.record_failing,
            accept_outcomes=args.accept,
            on_start=bar.start,
            on_done=lambda _: bar.advance(),
            require_keys=args.require_keys,
            runtime=runtime,
            runtime_name=runtime_name,
            layers=roots.layers,
            own=args.own,
            allow_status_change=args.allow_status_change,
        )
    for message in report.skipped:
        print(f"skipped: {message}")
    for sid in report.recorded:
        print(f"recorded {args.provider}/{sid}")
    print(f"{len(report.recorded)} recorded, {len(report.kept)} kept as they were")
    for sid, change in report.drift.items():
        print(f"\n{sid}: the normalized outcome changed:\n{change}")
    if report.drift and not args.accept:
        print("\nReview the drift; expected forms change only with --accept.")
    for message in report.refused.values():
        print(f"refused: {message}")
    return 1 if report.refused else 0
