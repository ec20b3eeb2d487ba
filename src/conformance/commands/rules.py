"""`conformance rules [--provider P] [--json]`: the provider rule book (rule, what the provider
does, scope, source, checked date); `conformance rules check --provider P FILE [--json]`: wire
requests read as that provider would (exit 1 when a sourced rule fails, 2 on bad input)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("rules", help="print the provider rule book, or read wire requests as a provider would")
    p.add_argument("--provider", help="only the rule book of this provider's dialect, as it applies")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run, file=None)
    actions = p.add_subparsers(dest="rules_action", metavar="check")
    c = actions.add_parser("check", help="read wire requests as a provider would (exit 1 when a sourced rule fails)")
    c.add_argument("--provider", required=True, help="the provider that reads the requests")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.add_argument("file", metavar="FILE", help="one JSON request body, or JSON lines of {url, body, headers}")


def run(args: argparse.Namespace) -> int:
    if args.file is not None:
        return _check(args.provider, Path(args.file), as_json=args.json)
    return _print_book(args.provider, as_json=args.json)


def _print_book(provider: str | None, *, as_json: bool) -> int:
    from conformance.capabilities import get_profile, provider_names
    from conformance.codecs.reading import book_entries

    profile = get_profile(provider) if provider else None
    dialects = sorted({get_profile(n).dialect for n in ([provider] if provider else provider_names())})
    rows = [(d, e) for d in dialects for e in book_entries(d, profile)]
    if as_json:
        print(json.dumps([{"dialect": d, **e.__dict__} for d, e in rows], ensure_ascii=False, indent=1))
        return 0
    for dialect in dialects:
        print(f"## {dialect}" + (f" (as {provider} reads it)" if provider else ""))
        for d, e in rows:
            if d == dialect:
                print(f"- {e.id} [{e.kind}] {e.does}")
                print(f"    scope: {e.scope}\n    source: {e.source}\n    checked: {e.checked}")
    return 0


def _requests(path: Path) -> list[tuple[int, str | None, Any, dict[str, str] | None]]:
    from conformance.exceptions import InputError

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), where=str(path)) from None
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and not {"url", "body"} & whole.keys():
        return [(1, None, whole, None)]
    out: list[tuple[int, str | None, Any, dict[str, str] | None]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise InputError(f"not JSON ({exc})", where=f"{path}:{n}") from None
        if not isinstance(item, dict) or not isinstance(item.get("body"), dict):
            raise InputError('expected {"url": ..., "body": {...}, "headers": ...}', where=f"{path}:{n}")
        url = item.get("url")
        headers = item.get("headers")
        out.append(
            (n, url if isinstance(url, str) else None, item["body"], headers if isinstance(headers, dict) else None)
        )
    if not out:
        raise InputError("no request in the file", where=str(path))
    return out


def _check(provider: str, path: Path, *, as_json: bool) -> int:
    from conformance.capabilities import get_profile
    from conformance.codecs.reading import read_request
    from conformance.codecs.request_form import failing

    profile = get_profile(provider)
    results = []
    for line, url, body, headers in _requests(path):
        findings = read_request(body, profile, url=url, headers=headers)
        results.append((line, findings))
    if as_json:
        out = [{"line": line, "findings": [f.model_dump(mode="json") for f in fs]} for line, fs in results]
        print(json.dumps(out, ensure_ascii=False, indent=1))
    else:
        for line, fs in results:
            print(f"{path}:{line}: {len(failing(fs))} failing, {len(fs) - len(failing(fs))} notes")
            for f in fs:
                print(f"  {f.verdict} {f.path}: {f.fact}" + (f"\n    source: {f.source}" if f.source else ""))
    return 1 if any(failing(fs) for _, fs in results) else 0
