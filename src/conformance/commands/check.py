"""`conformance check SCENARIO_ID --provider P --actual ACTUAL.json`: judge another runtime's output.

For runtimes in any language: point the runtime at `conformance serve`, let it write what it made
of the scenario (the normalized outcome for `decode`, the wire body for `encode`, the repair
output for `repair`), and this prints the verdict and the diff against the scenario's expected
form. Exit 0 on pass (or a row the provider does not support), 1 on fail or missing.

`--json` prints one JSON object instead, for runtimes driven by their own test runner:
`{"scenario", "provider", "check", "verdict", "fail_kind", "reason", "differences", "expected",
"actual"}` where `verdict` is `pass`, `fail`, `unsupported` or `missing`, and each difference is
`{"path", "change", "kind", "expected", "actual"}` with `kind` `wrong`, `missing` or `extra`
(the matrix's typed differences; docs/other-runtimes.md). It also names the row's `basis`
(`provider` or `policy`), and for a result that is not green its evidence: `wire_source`,
`rule_source` and `class` (`defect`, `limitation`, `policy` or `unverified`). A policy row
(`basis: policy`) that differs only from the recommended policy is `policy`, exit 0: `check` is
given no declaration of the runtime's own policy.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance.commands.roots import add_root_option, resolve_roots
from conformance.compare import DiffEntry
from conformance.fileio import read_json, read_regular


def add_parser(sub: Any) -> None:
    p = sub.add_parser("check", help="judge a runtime's output for one scenario against its expected form")
    p.add_argument("scenario", metavar="SCENARIO_ID")
    p.add_argument("--provider", required=True)
    p.add_argument("--actual", required=True, metavar="ACTUAL.json", help="the runtime's output (normalized form)")
    add_root_option(p)
    p.add_argument(
        "--request-log",
        metavar="LOG.jsonl",
        help="for retry scenarios: the request log of `conformance serve --request-log` for this run",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the verdict, typed differences, expected and actual as one JSON object",
    )
    p.set_defaults(func=run)


def _report(
    args: argparse.Namespace,
    scenario: Any,
    verdict: str,
    reason: str,
    entries: Sequence[DiffEntry] = (),
    expected: Any = None,
    actual: Any = None,
    show_expected: bool = False,
) -> int:
    """Print the verdict (text, or one JSON object with `--json`); the exit code."""
    from conformance.compare import render_diff
    from conformance.compare.results import fail_kind

    res = _classified(args, scenario, verdict, reason, entries)
    verdict, reason = res.verdict, res.reason
    code = 1 if verdict in ("fail", "missing") else 0
    if getattr(args, "json", False):
        out = {
            "scenario": scenario.id,
            "provider": args.provider,
            "check": scenario.check,
            "verdict": verdict,
            "fail_kind": fail_kind(list(entries)) if verdict != "policy" else None,
            "reason": reason,
            "differences": [
                e.model_dump(include={"path", "change", "kind", "expected", "actual", "basis"}, exclude_none=True)
                for e in entries
            ],
            "expected": expected,
            "actual": actual,
            "basis": res.basis,
            "class": res.evidence_class,
            "wire_source": res.wire_source,
            "rule_source": res.rule_source,
        }
        print(json.dumps(out, ensure_ascii=False, default=str))
        return code
    print(f"{verdict}: {reason}")
    if res.evidence_class:
        wire, rule = res.wire_source or "none replayed", res.rule_source or "no source"
        print(f"class: {res.evidence_class} (wire: {wire}; rule: {rule})")
    if entries:
        print(render_diff(list(entries)))
    if show_expected and verdict == "fail":
        print("expected:\n" + json.dumps(expected, indent=2, ensure_ascii=False))
    return code


def _classified(
    args: argparse.Namespace, scenario: Any, verdict: str, reason: str, entries: Sequence[DiffEntry]
) -> Any:
    """The verdict as a `ScenarioResult`, read as a policy row where it is one, with its evidence."""
    from conformance.harness.classify import classify
    from conformance.harness.context import result
    from conformance.harness.policy import policy_verdict
    from conformance.runtime.protocol import Declaration

    res = result(scenario, args.provider, verdict, reason, diff=list(entries))  # type: ignore[arg-type]
    if verdict == "fail" and (Path(args.root) / scenario.cassette_rel(args.provider)).is_file():
        res.cassette = scenario.cassette_rel(args.provider)
    res = policy_verdict(Declaration(name="runtime"), scenario, res)
    return classify(res, scenario, Path(args.root))


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from conformance.capabilities import get_profile
    from conformance.compare import diff
    from conformance.exceptions import InputError
    from conformance.harness.checks.common import canonical_outcome, expected_outcome
    from conformance.harness.checks.transcript import REPAIR_IGNORE
    from conformance.scenarios import load_layered

    get_profile(args.provider)
    roots = resolve_roots(args.root)
    (scenario,) = load_layered(roots.layers or (roots.top,), only=[args.scenario])
    args.root = roots.top
    actual = read_json(Path(args.actual))
    entry = scenario.entry(args.provider)
    if entry is not None and entry.unsupported:
        return _report(args, scenario, "unsupported", entry.unsupported, actual=actual)
    ignore: tuple[str, ...] = tuple(scenario.spec.ignore)
    if scenario.check == "decode":
        expected = expected_outcome(scenario, args.provider)
        try:
            actual = canonical_outcome(actual)
        except ValidationError as exc:
            raise InputError(f"not a normalized outcome: {exc.errors()[0]['msg']}", where=args.actual) from None
    elif scenario.check == "retry":
        return _judge_turn(scenario, args, actual)
    elif scenario.check in ("encode", "repair"):
        expected = scenario.expected_for(args.provider)
        if scenario.check == "repair":
            ignore += REPAIR_IGNORE
    else:
        raise InputError(
            f"`check` judges decode, encode, repair and retry scenarios, not {scenario.check}", where=args.scenario
        )
    if expected is None:
        return _report(args, scenario, "missing", f"no expected form for {args.provider}", actual=actual)
    entries = diff(expected, actual, ignore=ignore)
    if entries:
        why = f"{scenario.id}[{args.provider}] — {len(entries)} difference(s) from the expected normalized form"
        return _report(args, scenario, "fail", why, entries, expected, actual, show_expected=True)
    why = f"{scenario.id}[{args.provider}] matches the expected normalized form"
    return _report(args, scenario, "pass", why, expected=expected, actual=actual)


_LOG_FIELDS: dict[str, tuple[tuple[type, ...], str, bool]] = {
    # field → (accepted types, what the message calls them, required)
    "seq": ((int,), "an integer", True),
    "t": ((int, float), "a number of seconds", True),
    "cassette": ((str, type(None)), "a path or null", False),
    "interaction": ((int, type(None)), "an interaction index or null (no interaction matched)", False),
    "headers": ((dict,), "an object", False),
    "query": ((str,), "a string", False),
    "status": ((int,), "an HTTP status", False),
}
"""The request-log fields `check` reads (the log `conformance serve --request-log` writes)."""


def _log_entry(entry: Any, where: str) -> dict[str, Any]:
    from conformance.exceptions import InputError

    if not isinstance(entry, dict):
        raise InputError("not a JSON object", where=where)
    for name, (types, what, required) in _LOG_FIELDS.items():
        if name not in entry:
            if required:
                raise InputError(f"missing field {name!r} (a request log line of `conformance serve`)", where=where)
            continue
        value = entry[name]
        if isinstance(value, bool) or not isinstance(value, types):
            shown = json.dumps(value, ensure_ascii=True)
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            raise InputError(f"field {name!r} must be {what}, got {shown}", where=where)
    if entry["t"] != entry["t"] or entry["t"] in (float("inf"), float("-inf")) or entry["t"] < 0:
        raise InputError(f"field 't' must be a number of seconds, got {entry['t']!r}", where=where)
    if entry.get("interaction") is not None and entry["interaction"] < 0:
        raise InputError("field 'interaction' must be an interaction index or null", where=where)
    return entry


def read_request_log(path: Path) -> list[dict[str, Any]]:
    """The emulator's request log (docs/request-log.md); a malformed line names its number and field."""
    import orjson

    from conformance.exceptions import InputError

    try:
        lines = read_regular(path).splitlines()
    except FileNotFoundError:
        raise InputError("no such request log", where=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a request log", where=str(path)) from None
    out: list[dict[str, Any]] = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"not a JSON object ({exc})", where=f"{path}:{n}") from None
        out.append(_log_entry(entry, f"{path}:{n}"))
    return sorted(out, key=lambda e: (float(e["t"]), int(e["seq"])))


def _judge_turn(scenario: Any, args: argparse.Namespace, actual: Any) -> int:
    from conformance.exceptions import InputError
    from conformance.harness.checks.retry import judge_request_log
    from conformance.replay.cassette import load_cassette

    if not args.request_log:
        raise InputError("a retry scenario is judged from the emulator's request log", where="--request-log")
    cassette = scenario.cassette_path(args.provider, args.root)  # the top root; the scenario knows its layers
    recorded = load_cassette(cassette)
    name = cassette.name
    log = [e for e in read_request_log(Path(args.request_log)) if str(e.get("cassette") or name).endswith(name)]
    if not isinstance(actual, dict):
        raise InputError("the runtime's output must be a JSON object (the final outcome)", where=args.actual)
    try:
        expected, got, problems = judge_request_log(scenario, args.provider, actual, log)
    except ValueError as exc:  # pydantic's ValidationError: the outcome is not a normalized one
        from conformance.exceptions import one_line

        raise InputError(f"not a turn outcome: {one_line(exc)}", where=args.actual) from None
    from conformance.compare import diff

    entries = [*diff(expected, got, ignore=tuple(scenario.spec.ignore)), *problems]
    served = {e.get("interaction") for e in log}
    unplayed = [i for i in range(len(recorded.interactions)) if i not in served]
    if unplayed:
        entries.append(
            DiffEntry(
                path="requests",
                change="removed",
                expected=f"interactions {unplayed} of {cassette} were never asked for",
            )
        )
    if entries:
        why = f"{scenario.id}[{args.provider}] — {len(entries)} difference(s) in what the runtime did"
        return _report(args, scenario, "fail", why, entries, expected, got)
    why = f"{scenario.id}[{args.provider}] — requests, keys, waits and outcome as expected"
    return _report(args, scenario, "pass", why, expected=expected, actual=got)
