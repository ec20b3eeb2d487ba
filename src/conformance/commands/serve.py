"""`conformance serve`: a loopback HTTP server answering like each provider from cassettes."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("serve", help="answer like each provider from the cassettes, on loopback, with fault injection")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--host", default="127.0.0.1", choices=["127.0.0.1", "localhost", "::1"])
    p.add_argument(
        "--cassettes",
        default=None,
        help="cassette directory (default: ./cassettes/ when there is one, else the --root's cassettes/)",
    )
    from conformance.commands.roots import add_root_option

    add_root_option(p)
    p.add_argument("--chunk-size", type=int, default=64, help="bytes per streamed chunk (default: 64)")
    p.add_argument("--delay", type=float, default=0.0, help="seconds between chunks (default: 0)")
    p.add_argument(
        "--fault",
        action="append",
        default=[],
        help="e.g. '429;retry-after=30;times=1', 529, 'cut=200' (a drop), 'end=200', reset, timeout, "
        "error-event, 'rechunk=7'",
    )
    p.add_argument(
        "--request-log", metavar="FILE", help="append one JSON line per request received (keys fingerprinted)"
    )
    p.set_defaults(func=run)


def _environment_keys() -> tuple[str, ...]:
    """Every provider key set in the environment: fingerprinted wherever it shows in the request log."""
    import os

    from conformance.capabilities import get_profile, provider_names

    names = {name for provider in provider_names() for name in get_profile(provider).key_env}
    return tuple(sorted({os.environ[n].strip() for n in names if os.environ.get(n, "").strip()}))


def _cassettes(args: argparse.Namespace) -> Path:
    """`--cassettes`, else ./cassettes/, else the top root's (`--root`, the project's, or the bundled data)."""
    from conformance.commands.roots import resolve_roots

    if args.cassettes:
        return Path(args.cassettes)
    if not args.root and Path("cassettes").is_dir():
        return Path("cassettes")
    return resolve_roots(args.root).top / "cassettes"


def run(args: argparse.Namespace) -> int:
    from conformance.emulator import Fault, Settings, base_urls, serve
    from conformance.exceptions import InputError

    directory = _cassettes(args)
    if not directory.is_dir():
        raise InputError("no such cassette directory", where=str(directory))
    settings = Settings(
        chunk_size=args.chunk_size,
        delay_s=args.delay,
        faults=[Fault.parse(f) for f in args.fault],
        request_log=Path(args.request_log) if args.request_log else None,
        keys=_environment_keys(),
    )
    server = serve(directory, host=args.host, port=args.port, settings=settings)
    port = server.server_address[1]
    print(f"conformance emulator on http://{args.host}:{port} — base URLs:")
    for name, url in base_urls(args.host, port, sorted(server.catalog.by_provider)).items():
        print(f"  {name}: {url}")
    print(f"one scenario's cassette only: http://{args.host}:{port}/s/<scenario id>/<provider>/… (same paths)")
    print("per-request faults: header x-conformance-fault (e.g. '429;retry-after=30'). Ctrl-C stops.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
