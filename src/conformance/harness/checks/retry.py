"""The `retry` check: one turn of the runtime under test against a multi-interaction cassette.

Black box, through the runtime's `turn` capability: the harness hands the runtime a transport that
serves the cassette interaction by interaction (body-matched, so each retried request must be the
one recorded — for example with its tool results compressed), keys, the scenario's settings
(`input.runtime`: `keys: N`, `policy`, `compress_threshold`, …) and a fake clock whose waits pass
instantly. What is judged is what the harness observes, never the runtime's own account:

- `requests`: how many requests were sent, in order, and — where the scenario says which auth
  profile an attempt uses — which key each carried;
- `waits`: every wait on the clock. A wait the provider asked for (`kind: rate_limited`, from
  `Retry-After` or `RetryInfo`) must last at least the hint and at most the hint plus
  `max(1 s, 25 %)`; a back-off wait must lie within a quarter and four times the scenario's value,
  and where the scenario sets `expected.backoff_growth`, be at least that many times the back-off
  wait before it (a quarter-to-four-times band alone passes a constant back-off);
- the final outcome: the message, or the typed error and the partial message kept.

The scenario's `expected.trace` (the reference loop's vocabulary: `send`, `wait`, `rotate`, …)
is where these observations are read from: its `send` steps are the requests (with `profile` for
the key), its `wait` steps the waits. Trace steps themselves are not compared.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from conformance.capabilities import get_profile
from conformance.compare import DiffEntry, ScenarioResult
from conformance.exceptions import ScenarioError, UnknownProviderError
from conformance.harness.context import HarnessContext, judge, mismatch_failure, requires, result, unplayed_failure
from conformance.harness.focus import focus_of
from conformance.model import AssistantMessage, ProviderError
from conformance.model.parse import parse_conversation
from conformance.replay.cassette import cassette_evidence, load_cassette
from conformance.replay.player import CassetteTransport, LoggedRequest, ReplayMismatch
from conformance.runtime.clock import FakeClock
from conformance.runtime.protocol import TurnRequest
from conformance.scenarios import Scenario
from conformance.secrets import key_fingerprint

HINTED = frozenset({"rate_limited"})
"""Wait kinds that follow a provider's hint: at least the hint, never much more."""


def replay_keys(n: int) -> list[str]:
    """The keys a turn check hands over: distinct, recognisable, never real."""
    return [f"replay-key-{i}" for i in range(max(n, 1))]


def _outcome(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, model in (("message", AssistantMessage), ("partial", AssistantMessage), ("error", ProviderError)):
        if key in data:
            value = data[key]
            out[key] = None if value is None else model.model_validate(value).model_dump(mode="json", exclude_none=True)
    return out


def observable(expected: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[float, str | None]]]:
    """What the harness can see, read from the scenario's expected trace: the requests (and keys
    where named) and the final outcome; and the expected waits with their kinds."""
    trace = expected.get("trace", [])
    # a `compact` step is the summarisation request of automatic compaction: a request too
    requests = [
        {"key": s["profile"]} if s.get("profile") is not None else {}
        for s in trace
        if s.get("action") in ("send", "compact")
    ]
    waits = [(float(s["seconds"]), s.get("kind")) for s in trace if s.get("action") == "wait"]
    return {"requests": requests, **_outcome(expected)}, waits


def outcome_kind(observed: dict[str, Any], focus: tuple[str, ...] = ()) -> dict[str, Any]:
    """What a retry row judges of the final outcome: whether a message came (and how it stopped), or
    which kind of error, and whether a partial message was kept — not the message's other fields,
    which its decode rows judge. A part the row's `focus` names is kept whole."""
    out = {k: v for k, v in observed.items() if k == "requests"}
    for part in ("message", "partial", "error"):
        if part not in observed:
            continue
        value = observed[part]
        if any(f == part or f.startswith(part + ".") for f in focus) or not isinstance(value, dict):
            out[part] = value
        elif part == "message":
            out[part] = {"stop_reason": value.get("stop_reason")}
        elif part == "error":
            out[part] = {"kind": value.get("kind")}
        else:
            out[part] = "kept"
    return out


def one_of(transport: CassetteTransport) -> list[int]:
    """The interactions left unplayed, less those of an alternative group (`meta.one_of`: lists of
    interaction indices, each the same request in a form the row equally allows) one of which was
    played."""
    unplayed = transport.unplayed()
    groups = transport.cassette.meta.get("one_of") or []
    done = {i for group in groups if any(j not in unplayed for j in group) for i in group}
    return [i for i in unplayed if i not in done]


def _key_index(request: LoggedRequest, keys: list[str]) -> int | None:
    carried = " ".join(request.headers.values()) + " " + request.url
    found = [i for i, key in enumerate(keys) if key in carried]
    return found[0] if len(found) == 1 else None


def backoff_growth(expected: dict[str, Any], where: str) -> float | None:
    """The scenario's `expected.backoff_growth`: the least ratio between one back-off wait and the
    one before (None: not judged)."""
    growth = expected.get("backoff_growth")
    if growth is None:
        return None
    if not isinstance(growth, int | float) or isinstance(growth, bool) or growth <= 1:
        raise ScenarioError("expected.backoff_growth must be a number above 1", where=where)
    return float(growth)


def wait_bounds(want: float, kind: str | None, tolerance: float = 0.0) -> tuple[float, float]:
    """The acceptable range of a wait the scenario expects to last `want` seconds."""
    low, high = (want, want + max(1.0, 0.25 * want)) if kind in HINTED else (want / 4, want * 4)
    return max(low - tolerance, 0.0), high + tolerance


def wait_problems(
    actual: list[float], expected: list[tuple[float, str | None]], growth: float | None = None, slack: float = 0.0
) -> list[DiffEntry]:
    """Each wait against its bound; a missing or extra wait is a difference too. With `growth`, each
    back-off wait must also be at least `growth` times the back-off wait before it.

    The bound of a back-off wait (a quarter to four times the scenario's value) lets a runtime keep
    its own scale and jitter, but over a few waits it cannot tell a constant back-off from a growing
    one: a constant 2 s lies within [0.25, 4], [0.5, 8] and [1, 16]. The ratio can, at any scale.
    `slack` widens each bound (waits measured, not recorded by the check's clock)."""
    out: list[DiffEntry] = []
    previous: float | None = None
    for i in range(max(len(actual), len(expected))):
        path = f"waits[{i}]"
        if i >= len(actual):
            out.append(DiffEntry(path=path, change="removed", expected=expected[i][0]))
            continue
        if i >= len(expected):
            out.append(DiffEntry(path=path, change="added", actual=actual[i]))
            continue
        want, kind = expected[i]
        low, high = wait_bounds(want, kind, slack)
        if not low - 1e-6 <= actual[i] <= high + 1e-6:
            bound = f"[{low:g}, {high:g}] s ({'the provider asked for' if kind in HINTED else 'back-off'} {want:g} s)"
            # shorter than the provider asked for is against the provider; the rest is the policy's band
            early = kind in HINTED and actual[i] < low - 1e-6
            out.append(
                DiffEntry(
                    path=path,
                    change="changed",
                    expected=bound,
                    actual=actual[i],
                    basis="provider" if early else None,
                )
            )
        elif (
            growth is not None
            and kind not in HINTED
            and previous is not None
            and actual[i] < growth * previous - 1e-6 - slack
        ):
            floor = f">= {growth * previous:g} s (at least {growth:g}x the previous back-off, {previous:g} s)"
            out.append(DiffEntry(path=path, change="changed", expected=floor, actual=actual[i]))
        if kind not in HINTED:
            previous = actual[i]
    return out


def sooner_than_hinted(expected: dict[str, Any], sleeps: list[float]) -> DiffEntry | None:
    """A request sent again sooner than the provider's hint allows, on a row that gives up with that
    hinted error: a provider fact even on a policy row (the provider said the request fails until
    then). None when the row carries no hint or the runtime waited at least that long."""
    error = expected.get("error")
    hint = error.get("retry_after_s") if isinstance(error, dict) else None
    if not isinstance(hint, int | float) or sum(sleeps) >= float(hint) - 1e-6:
        return None
    return DiffEntry(
        path="waits[0]",
        change="changed",
        expected=f">= {float(hint):g} s (the provider's retry hint) before sending again",
        actual=sum(sleeps),
        basis="provider",
    )


def fallback_targets(raw: Any, where: str) -> list[dict[str, Any]]:
    """The scenario's `input.runtime.fallback` (provider names, or `{provider, model}`) as the turn's
    `settings["fallback"]` (`runtime.protocol.FALLBACK_SETTING`): each with the provider's base URL
    (which the harness's transport answers for) and a key of its own."""
    if not isinstance(raw, list):
        raise ScenarioError("input.runtime.fallback must be a list of providers", where=where)
    out: list[dict[str, Any]] = []
    for i, entry in enumerate(raw):
        spec = {"provider": entry} if isinstance(entry, str) else entry
        if not isinstance(spec, dict) or not isinstance(spec.get("provider"), str):
            raise ScenarioError("each fallback is a provider name or {provider, model}", where=where)
        try:
            profile = get_profile(spec["provider"])
        except UnknownProviderError as exc:
            raise ScenarioError(f"input.runtime.fallback[{i}]: {exc}", where=where) from None
        key = f"replay-fallback-key-{i}"
        out.append({"provider": profile.name, "base_url": profile.base_url, "model": spec.get("model"), "keys": [key]})
    return out


def check_retry(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    skipped = requires(ctx, scenario, provider, "turn")
    if skipped is not None:
        return skipped
    cassette = scenario.cassette_path(provider, ctx.root)
    if not cassette.is_file():
        return result(scenario, provider, "missing", f"no cassette at {ctx.rel(cassette)}")
    clock = FakeClock()
    # typed errors name the file and field; a runtime asking for a stream gets the recorded answer streamed
    transport = CassetteTransport(load_cassette(cassette), clock=clock, restream=True)
    evidence = cassette_evidence(transport.cassette.meta)
    settings = dict(scenario.spec.input.get("runtime", {}))
    conversation = scenario.conversation(provider)
    parse_conversation(conversation, where=f"{scenario.path}: input")
    growth = backoff_growth(dict(scenario.expected_for(provider) or {}), str(scenario.path))
    try:
        expected, waits = observable(dict(scenario.expected_for(provider) or {}))
    except (ValueError, KeyError, TypeError) as exc:
        raise ScenarioError(f"expected: {exc}", where=str(scenario.path)) from None
    keys = replay_keys(int(settings.get("keys", 1)))
    if "fallback" in settings:
        settings["fallback"] = fallback_targets(settings["fallback"], str(scenario.path))
    request = TurnRequest(
        provider=provider,
        conversation=conversation,
        transport=transport,
        base_url=get_profile(provider).base_url,
        keys=keys,
        clock=clock,
        settings=settings,
    )
    rel = ctx.rel(cassette)
    # a jittered back-off (the SDKs draw from `random`) replays the same waits on every run, in any
    # order or worker: the verdict is reproducible, and a counted table does not drift
    random.seed(f"{scenario.id}/{provider}")
    try:
        outcome = ctx.runtime.turn(request)
        transport.raise_mismatch()  # the library may have replaced the exception with one of its own
    except ReplayMismatch as exc:
        mismatch = mismatch_failure(scenario, provider, exc, cassette=rel, evidence=evidence, expected=expected)
        early = sooner_than_hinted(expected, clock.sleeps)
        if early is not None:
            mismatch.diff.append(early)
        return mismatch
    named = [i for i, r in enumerate(expected["requests"]) if "key" in r]
    actual = {
        "requests": [{"key": _key_index(r, keys)} if i in named else {} for i, r in enumerate(transport.log)],
        **_outcome(outcome if isinstance(outcome, dict) else {}),
    }
    failure = unplayed_failure(
        scenario, provider, one_of(transport), cassette=rel, evidence=evidence, expected=expected, actual=actual
    )
    if failure is not None:
        return failure
    focus = focus_of(scenario)
    expected, actual = outcome_kind(expected, focus), outcome_kind(actual, focus)
    verdict = judge(scenario, provider, expected, actual, ctx=ctx, cassette=rel, evidence=evidence)
    # out of process a wait is measured between two requests' arrivals (`runtime.loopback`): each
    # bound is widened by the measurement's slack, as for the emulator's gaps
    slack = GAP_TOLERANCE_S if getattr(ctx.runtime, "real_time", False) else 0.0
    problems = wait_problems(clock.sleeps, waits, growth, slack)
    if not problems:
        return verdict
    entries = [*verdict.diff, *problems]
    return result(
        scenario,
        provider,
        "fail",
        f"{len(entries)} difference{'s' if len(entries) > 1 else ''} in what the runtime did",
        cassette=rel,
        evidence=evidence,
        expected={**expected, "waits": [w for w, _ in waits]},
        actual={**actual, "waits": clock.sleeps},
        diff=entries,
    )


# out of process: the emulator's request log ------------------------------------------------------

GAP_TOLERANCE_S = 0.25
"""Out of process, a wait is the gap between two requests' arrival times: it also holds the time the
answer took to arrive and to be read, so each bound is widened by this much."""


def _gaps_expected(trace: list[dict[str, Any]]) -> list[tuple[float, str | None] | None]:
    """For each gap between consecutive requests, the wait expected there (None: no wait)."""
    gaps: list[tuple[float, str | None] | None] = []
    pending: tuple[float, str | None] | None = None
    sends = 0
    for step in trace:
        if step.get("action") == "send":
            if sends:
                gaps.append(pending)
            sends += 1
            pending = None
        elif step.get("action") == "wait":
            seconds = float(step["seconds"]) + (pending[0] if pending else 0.0)
            pending = (seconds, step.get("kind") if pending is None else pending[1])
    return gaps


def judge_request_log(
    scenario: Scenario, provider: str, outcome: dict[str, Any], log: list[dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any], list[DiffEntry]]:
    """(expected, actual, differences) of a turn run out of process against `conformance serve`.

    `log` holds the request-log entries of this scenario's cassette, in arrival order;
    the log names a key by `secrets.key_fingerprint`."""
    raw = dict(scenario.expected_for(provider) or {})
    expected, _ = observable(raw)
    settings = dict(scenario.spec.input.get("runtime", {}))
    prints = [key_fingerprint(k) for k in replay_keys(int(settings.get("keys", 1)))]
    named = [i for i, r in enumerate(expected["requests"]) if "key" in r]

    def key_of(entry: dict[str, Any]) -> int | None:
        values = " ".join(str(v) for v in (entry.get("headers") or {}).values()) + " " + str(entry.get("query", ""))
        found = [i for i, fp in enumerate(prints) if fp in values]
        return found[0] if len(found) == 1 else None

    actual = {
        "requests": [{"key": key_of(e)} if i in named else {} for i, e in enumerate(log)],
        **_outcome(outcome),
    }
    problems: list[DiffEntry] = []
    for i, entry in enumerate(log):
        if entry.get("interaction") is None:
            problems.append(
                DiffEntry(path=f"requests[{i}]", change="added", actual="a request no recorded interaction matches")
            )
    gaps = [float(b.get("t", 0.0)) - float(a.get("t", 0.0)) for a, b in itertools.pairwise(log)]
    for i, (gap, want) in enumerate(zip(gaps, _gaps_expected(raw.get("trace", [])), strict=False)):
        if want is None:
            continue
        low, high = wait_bounds(want[0], want[1], GAP_TOLERANCE_S)
        if not low <= gap <= high:
            early = want[1] in HINTED and gap < low  # sooner than the provider asked: a provider fact
            problems.append(
                DiffEntry(
                    path=f"waits[{i}]",
                    change="changed",
                    expected=f"[{low:g}, {high:g}] s",
                    actual=gap,
                    basis="provider" if early else None,
                )
            )
    focus = focus_of(scenario)
    return outcome_kind(expected, focus), outcome_kind(actual, focus), problems
