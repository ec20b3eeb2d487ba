"""`conformance` command line: thin shells over the harness, the runtime and the report.

Exit codes: 0 success; 1 a check failed (a failing cell, a regression, lint findings);
2 bad input (the message names the file, line or field).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from conformance import __version__
from conformance.capabilities import default_columns, get_profile, provider_names
from conformance.commands.roots import add_root_option, resolve_roots
from conformance.exceptions import ConformanceError, one_line
from conformance.fileio import read_json_mended
from conformance.runtime.loading import load_runtime
from conformance.runtime.process import PROGRAM_FAULT

Command = Callable[[argparse.Namespace], int]
_COMMANDS: dict[str, Command] = {}


def command(name: str) -> Callable[[Command], Command]:
    def deco(fn: Command) -> Command:
        _COMMANDS[name] = fn
        return fn

    return deco


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _providers(arg: list[str] | None) -> list[str]:
    names = arg or default_columns()
    for name in names:
        get_profile(name)  # UnknownProviderError names the known ones
    return names


# run ---------------------------------------------------------------------------------------------


@command("run")
def cmd_run(args: argparse.Namespace) -> int:
    from conformance.commands.project import project_settings
    from conformance.harness import HarnessContext

    roots = resolve_roots(args.root)
    root = roots.top
    scenario_dir = root / "scenarios"
    spec = args.runtime or (None if args.runtime_cmd else project_settings().runtime)  # the project's, as pytest's
    runtime, runtime_name = load_runtime(
        spec,
        command=args.runtime_cmd,
        timeout=args.runtime_timeout,
        start_timeout=args.runtime_start_timeout,
        max_answer=args.runtime_max_answer,
    )
    ctx = HarnessContext(root=root, runtime=runtime, runtime_name=runtime_name, layers=roots.layers)
    import tempfile

    # hypothesis keeps its cache in .hypothesis/ of the working directory unless told otherwise
    with tempfile.TemporaryDirectory(prefix="conformance-hypothesis-") as home:
        own = "HYPOTHESIS_STORAGE_DIRECTORY" not in os.environ
        if own:
            os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = home
        try:
            return _run(args, root, scenario_dir, ctx)
        finally:
            if own:
                del os.environ["HYPOTHESIS_STORAGE_DIRECTORY"]
            close = getattr(runtime, "close", None)
            if callable(close):
                close()


def _run(args: argparse.Namespace, root: Path, scenario_dir: Path, ctx: Any) -> int:
    from conformance.harness import build_matrix, run_all
    from conformance.harness.parallel import auto_jobs, program_jobs
    from conformance.report.progress import progress, wanted
    from conformance.report.terminal import WIDTH, MatrixTable
    from conformance.scenarios import load_layered

    if args.examples:
        ctx.extras["examples"] = args.examples
    scenarios = load_layered(ctx.layers or (root,), only=args.scenario)
    providers = _providers(args.provider)
    console = Console()
    if not console.is_terminal:  # a log or a pipe: 100 columns, or wide enough for every column with --wide
        console = Console(width=max(console.width, 30 + 12 * len(providers)) if args.wide else WIDTH)
    enabled = wanted(console, disabled=args.no_progress)
    total = sum(1 for s in scenarios for p in providers if s.applies(p))
    real_time = getattr(ctx.runtime, "real_time", False)  # a program: --jobs caps the programs alive at once
    jobs = args.jobs or (program_jobs() if real_time else auto_jobs(total))
    with progress(console, total, "replaying", enabled=enabled, thread=jobs == 1) as bar:
        results = run_all(
            scenarios,
            providers,
            ctx,
            on_start=lambda s, p: bar.start(f"{s.id}[{p}]"),
            on_result=lambda r: bar.advance(f"{r.scenario}[{r.provider}]"),
            jobs=jobs,
        )
    real = None
    if not args.no_real:
        from conformance.harness.real import judge_all

        real = judge_all(ctx, providers)
    matrix = build_matrix(results, providers, ctx, scenario_dir=scenario_dir, real=real)
    out = Path(args.out)  # relative to the working directory, as every path option of every command is
    matrix.save(out / "matrix.json")
    console.print(MatrixTable(matrix, width=None if args.wide else WIDTH))
    if args.show_diff:
        _print_failures(console, matrix)
    console.print(f"wrote {out / 'matrix.json'}", markup=False, highlight=False)
    faulted = sum(1 for r in results if PROGRAM_FAULT in r.reason)
    if faulted:
        console.print(
            f"the runtime program failed {faulted} row{'s' if faulted != 1 else ''} (crash, hang or bad output)"
        )
    missing = [r for c in matrix.cells for r in c.results if r.verdict == "missing"]
    if missing and args.strict:
        for res in missing:
            line = f"strict: {res.scenario}[{res.provider}] missing: {res.reason}"
            console.print(line, markup=False, highlight=False)
    if args.junit_xml:
        from conformance.report.junit import write_junit

        console.print(f"wrote {write_junit(matrix, Path(args.junit_xml))}", markup=False, highlight=False)
    if args.html:
        from conformance.report.html import write_html

        console.print(f"wrote {write_html(matrix, out)}", markup=False, highlight=False)
    if matrix.failed() and not args.show_diff:
        console.print("run again with --show-diff to print each failing scenario's differences", highlight=False)
    return 1 if matrix.failed() or (missing and args.strict) else 0


def _print_failures(console: Console, matrix: Any) -> None:
    """Each failing or erroring scenario with its typed differences (and a crash's traceback)."""
    from conformance.compare import render_diff

    for column in matrix.real_traffic or []:
        for call in column.traffic.failing:
            text = f"real/{call.call}[{column.provider}] {call.verdict}: {call.reason}\nsource: {call.source}"
            body = Text(text + ("\n" + render_diff(call.diff) if call.diff else "") + "\n")
            console.print(body, highlight=False, soft_wrap=True)  # the source address stays whole
    for cell in matrix.cells:
        for res in cell.results:
            if res.verdict not in ("fail", "error"):
                continue
            kind = f" ({res.fail_kind})" if res.fail_kind else ""
            lines = [f"{res.scenario}[{res.provider}] {res.verdict}{kind}: {res.reason}"]
            if res.diff:
                lines.append(render_diff(res.diff))
            if res.traceback:
                lines.append(res.traceback)
            console.print(Text("\n".join(lines) + "\n"), highlight=False, soft_wrap=True)  # lines whole in a pipe


def _runtime_cmd_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--runtime-cmd",
        metavar="COMMAND",
        help="runtime under test as a program speaking the JSON-lines protocol (docs/other-runtimes.md), "
        'e.g. "node adapter.mjs"',
    )
    p.add_argument(
        "--runtime-timeout",
        type=float,
        metavar="SECONDS",
        help="seconds one call to the --runtime-cmd program may take before it counts as hung (default: 60)",
    )
    p.add_argument(
        "--runtime-start-timeout",
        type=float,
        metavar="SECONDS",
        help="seconds the --runtime-cmd program may take to start and answer the handshake (default: 120)",
    )
    p.add_argument(
        "--runtime-max-answer",
        type=_positive_bytes,
        metavar="BYTES",
        help="longest line (one answer) the --runtime-cmd program may print, in bytes; it may print twice "
        "that on stdout during one call (default: 16777216, 16 MiB)",
    )


def _positive_bytes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of bytes: {text!r}") from None
    if value < 1024:
        raise argparse.ArgumentTypeError(f"at least 1024 bytes, not {value}")
    return value


# decode / encode -----------------------------------------------------------------------------------


@command("decode")
def cmd_decode(args: argparse.Namespace) -> int:
    from conformance.replay.cassette import load_cassette

    runtime, _ = load_runtime(args.runtime, needs=("decode",))
    get_profile(args.provider)
    cassette = load_cassette(Path(args.cassette))
    from conformance.codecs.endpoints import skip_reason  # other calls of a recording are listed, not decoded
    from conformance.runtime.protocol import decode_response

    profile = get_profile(args.provider)
    model = str(cassette.meta.get("model") or profile.default_model)  # the model the recording asked
    for i, it in enumerate(cassette.interactions):
        if (why := skip_reason(profile.dialect, it.request.method, it.request.uri)) is not None:
            _print_json({"interaction": i, "skipped": why})
            continue
        outcome = decode_response(
            runtime,
            args.provider,
            it.response.status,
            it.response.flat_headers(),
            [it.response.body],
            it.request.stream_requested(),
            model=model,
        )
        _print_json({"interaction": i, **outcome})
    return 0


@command("encode")
def cmd_encode(args: argparse.Namespace) -> int:
    runtime, _ = load_runtime(args.runtime, needs=("encode",))
    get_profile(args.provider)
    from conformance.runtime.repair.surrogates import mend_surrogate_escapes

    # read as `conformance repair` reads a transcript: an escaped lone surrogate becomes U+FFFD, said
    conversation, mended = read_json_mended(Path(args.conversation), mend=mend_surrogate_escapes)
    if mended:
        Console(stderr=True).print(
            Text(f"{args.conversation}: replaced {mended} unpaired UTF-16 surrogate(s) with U+FFFD"), highlight=False
        )
    body = runtime.encode(conversation, args.provider)
    _print_json(body)
    from conformance.runtime.validate import validate

    problems = validate(body, get_profile(args.provider))
    for v in problems:
        Console(stderr=True).print(
            Text(f"{args.provider} would reject {v.path}: {v.message} ({v.rule})"), highlight=False
        )
    return 1 if problems else 0


# sync-requests -------------------------------------------------------------------------------------


@command("sync-requests")
def cmd_sync_requests(args: argparse.Namespace) -> int:
    from conformance.harness.sync import sync_requests

    roots = resolve_roots(args.root)
    root = roots.writable() if args.yes else roots.top
    changed = sync_requests(
        root,
        providers=_providers(args.provider),
        only=args.scenario,
        write=args.yes,
        out=sys.stdout,
        layers=roots.layers,
    )
    if changed and not args.yes:
        print(f"{changed} cassette request(s) would change; run again with --yes to write them")
    return 0


def _jobs(text: str) -> int:
    """`--jobs`: a positive count, or `auto` (0: one per CPU)."""
    if text == "auto":
        return 0
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of workers or 'auto', got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 worker, got {n}")
    return n


# parser ----------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="conformance", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", action="version", version=f"conformance {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    known = ", ".join(provider_names())

    p = sub.add_parser("run", help="replay every scenario × provider and print the compatibility matrix")
    p.add_argument("--provider", action="append", help=f"only this provider (repeatable; known: {known})")
    p.add_argument("--scenario", action="append", help="only this scenario id (repeatable)")
    add_root_option(p)
    p.add_argument(
        "--out", default="reports", help="where matrix.json is written, from the working directory (default: reports/)"
    )
    p.add_argument(
        "--runtime",
        help="runtime under test as package.module:factory (default: the project's conformance_runtime, "
        "else the reference runtime)",
    )
    _runtime_cmd_options(p)
    p.add_argument(
        "--wide",
        action="store_true",
        help="print the matrix as one table however wide (default: tables of providers that fit 100 columns)",
    )
    p.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        default=bool(os.environ.get("CI")),
        help="a missing cassette (a `missing` result) fails the run, exit 1 (default: on when the CI environment "
        "variable is set)",
    )
    p.add_argument(
        "--junit-xml", metavar="FILE", help="also write the results as JUnit XML (a test case per scenario × provider)"
    )
    p.add_argument("--no-html", dest="html", action="store_false", help="skip the HTML report (index.html)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (shown only on a terminal, not in CI)")
    p.add_argument(
        "--no-real",
        action="store_true",
        help="leave out the real traffic: the generation calls of the shipped corpus of public recordings, "
        "each decoded by the runtime and judged (docs/evidence.md)",
    )
    p.add_argument("--examples", type=int, help="examples per generated (hypothesis) row (default: the scenario's)")
    p.add_argument(
        "--show-diff",
        "-v",
        action="store_true",
        help="print each failing scenario's typed differences (expected → actual by contract path) after the matrix",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        default=0,
        metavar="N",
        help="worker processes for the checks (default: auto, one per CPU for runs of 100+ checks; 1: in this "
        "process); with --runtime-cmd, the most programs alive at once, for every kind of row (default: one per "
        "CPU, at most 4, computing, and 8 more for the rows that wait out provider hints)",
    )

    p = sub.add_parser("decode", help="print the normalized form of each interaction of a cassette")
    p.add_argument("--provider", required=True, help=f"provider whose dialect the cassette speaks ({known})")
    p.add_argument("--runtime", help="runtime as package.module:factory (default: the reference runtime)")
    p.add_argument("cassette", metavar="CASSETTE.yaml")

    p = sub.add_parser(
        "encode", help="print the wire request body the runtime would send (exit 1 if it breaks the provider's rules)"
    )
    p.add_argument("--provider", required=True, help=f"target provider ({known})")
    p.add_argument("--runtime", help="runtime as package.module:factory (default: the reference runtime)")
    p.add_argument("conversation", metavar="CONVERSATION.json")

    p = sub.add_parser("sync-requests", help="rebuild cassette request bodies from the runtime's encoder")
    p.add_argument("--provider", action="append", help="only this provider (repeatable)")
    p.add_argument("--scenario", action="append", help="only this scenario id (repeatable)")
    add_root_option(p, writes="synced cassettes (a lower layer's are left as they are)")
    p.add_argument("--yes", action="store_true", help="write the changes (without it, only show them)")

    for module_name in COMMAND_MODULES:
        module = importlib.import_module(f"conformance.commands.{module_name}")
        module.add_parser(sub)
    return parser


COMMAND_MODULES: tuple[str, ...] = (
    "init",
    "report",
    "publish",
    "repair",
    "lint",
    "check",
    "serve",
    "record",
    "store",
    "evidence",
    "rules",
    "repro",
)
"""Modules of `conformance.commands` that add subcommands: each has `add_parser(subparsers)`,
which sets `func` (a `Command`) as the parser default."""


def _input_error(exc: Exception) -> int:
    """One line naming the file (an `OSError` names it itself), exit code 2."""
    if isinstance(exc, OSError) and not isinstance(exc, ConformanceError):
        where = f"{exc.filename}: " if exc.filename else ""
        message = f"{where}{exc.strerror or exc}"
    else:
        message = one_line(exc)
    Console(stderr=True, soft_wrap=True).print(Text.assemble(("error: ", "bold red"), message), highlight=False)
    return 2


@functools.cache
def _parser(ci: bool, providers: tuple[str, ...]) -> argparse.ArgumentParser:
    """The parser, built once per process for what its defaults and help read (`CI`, the providers);
    parsing leaves it as it was."""
    del ci, providers  # the cache key: build_parser reads both
    return build_parser()


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser(bool(os.environ.get("CI")), tuple(provider_names()))
    args = parser.parse_args(argv)
    try:
        handler: Command = getattr(args, "func", None) or _COMMANDS[args.command]
        return handler(args)
    except (ConformanceError, OSError, UnicodeError) as exc:
        return _input_error(exc)
    except KeyboardInterrupt:
        Console(stderr=True).print("interrupted (Ctrl-C): nothing more was written", highlight=False)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
