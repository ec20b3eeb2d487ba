"""Recording cassettes against live providers (or any base URL, such as the emulator).

The request each scenario sends is built by the reference runtime from the scenario's input, so
what is recorded is exactly what replay matches. Modes follow pytest-recording's names:

- `none` — replay only; nothing is recorded (the default everywhere);
- `once` — record scenarios that have no cassette yet; existing cassettes are never touched;
- `new_episodes` — also re-record cassettes whose recorded request no longer matches what the
  runtime sends;
- `all` — re-record every selected scenario.

`only_failing` re-records only the cassettes of scenarios whose verdict is fail or error, and
leaves every other file byte for byte as it was. A missing API key skips the provider with a
message naming the variable. Cassettes carry provenance in `meta`, are scrubbed (see `scrub`) and
written atomically. After recording, the change in the *normalized* outcome against the previous
cassette is reported, so a reviewer sees semantic drift, not YAML noise.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any, Literal

import httpx
import orjson
import yaml

from conformance import __version__
from conformance.capabilities import ProviderProfile, get_profile
from conformance.compare import diff, render_diff
from conformance.exceptions import InputError, MissingKeyError
from conformance.fileio import LOADERS, atomic_write, dump_yaml, parse_yaml
from conformance.model.parse import parse_conversation
from conformance.replay.cassette import (
    Cassette,
    Interaction,
    RecordedRequest,
    RecordedResponse,
    dump_cassette,
    is_loopback,
    load_cassette,
    parse_cassette,
)
from conformance.replay.faults import fault_kinds, read_until_dropped
from conformance.replay.scrub import scrub_headers, scrub_text, scrub_url
from conformance.runtime import logsafe
from conformance.runtime.auth import apply_auth, resolve_key
from conformance.runtime.dropped import DroppedChunks
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_layered
from conformance.scenarios.layers import own_copy
from conformance.scenarios.loader import deep_merge, minimal_override, override_providers
from conformance.secrets import Secret, contains_secret, find_key, redact_line, unescape_ascii

RecordMode = Literal["none", "once", "new_episodes", "all"]
RECORD_MODES: tuple[str, ...] = ("none", "once", "new_episodes", "all")
RECORDED_CHECKS = frozenset({"decode"})


@dataclass
class RecordReport:
    recorded: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    drift: dict[str, str] = field(default_factory=dict)
    """Scenario → the change in its normalized outcome against the previous cassette."""
    refused: dict[str, str] = field(default_factory=dict)
    """Scenario → why its new recording was not written (an answer of another status class than the
    cassette's: a 404 from a wrong base URL never replaces a 200 unless told to)."""


@cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every recording (loading the CA store takes tens of milliseconds)."""
    return ssl.create_default_context()


def _outcome(provider: str, cassette: Cassette) -> list[dict[str, object]]:
    runtime = ReferenceRuntime()
    endings = fault_kinds(cassette.meta, len(cassette.interactions), str(cassette.path))
    return [
        runtime.decode(
            provider,
            it.response.status,
            it.response.flat_headers(),
            DroppedChunks([it.response.body]) if ending == "drop" else [it.response.body],
            it.request.stream_requested(),
        )
        for it, ending in zip(cassette.interactions, endings, strict=True)
    ]


def _contacted(response: httpx.Response) -> dict[str, str]:
    """Where the response came from, as the connection says: `host` (the URL's host and port) and
    `address` (the peer's IP address, when the transport has a socket), so a recording made against
    a server on this machine is never taken for one from the live provider."""
    url = response.request.url
    out = {"host": url.host + (f":{url.port}" if url.port else "")}
    stream = response.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    if isinstance(peer, tuple) and peer and isinstance(peer[0], str):
        out["address"] = peer[0]
    return out


def _should_record(mode: RecordMode, path: Path, wanted_body: bytes, url: str) -> bool:
    if mode == "all":
        return True
    if not path.is_file():
        return mode in ("once", "new_episodes")
    if mode == "once":
        return False
    first = load_cassette(path).interactions[0].request
    return first.json() != orjson.loads(wanted_body) or first.uri != url


def record_scenario(
    scenario: Scenario,
    profile: ProviderProfile,
    *,
    canonical: ProviderProfile,
    root: Path,
    key: Secret | None,
    mode: RecordMode,
    transport: httpx.BaseTransport | None,
    today: date,
    report: RecordReport,
    allow_status_change: bool = False,
) -> None:

    path = scenario.cassette_path(profile.name, root)  # the one in use, in whichever layer has it
    target = root / scenario.cassette_rel(profile.name)  # a recording goes into the top root only
    conv = parse_conversation(scenario.conversation(profile.name), where=f"{scenario.path}: input")
    wire = ReferenceRuntime().wire_request(conv, profile)
    body = orjson.dumps(wire.body)
    recorded_url = scrub_url(wire.url(canonical))  # the provider's own URL, wherever it was recorded
    if not _should_record(mode, path, body, recorded_url):
        report.kept.append(scenario.id)
        return
    logsafe.install()  # loggers created since the last recording are covered too
    url, headers = apply_auth(wire, profile, key)
    secrets = (key.reveal(),) if key is not None else ()
    try:
        with (
            httpx.Client(transport=transport, timeout=httpx.Timeout(600.0), verify=_tls()) as client,
            client.stream(wire.method, url, content=body, headers=headers) as response,
        ):
            contacted = _contacted(response)
            data, dropped = read_until_dropped(response)  # a connection that drops is recorded as one
    except (httpx.HTTPError, httpx.InvalidURL) as exc:  # refused, unreachable, or not an http(s) URL
        reason = redact_line(scrub_text(" ".join(str(exc).split()) or type(exc).__name__, secrets))
        raise InputError(f"cannot record {scenario.id}: {reason}", where=scrub_url(url)) from None
    response_headers: dict[str, list[str]] = {}
    for name, value in response.headers.multi_items():
        response_headers.setdefault(name, []).append(value)
    model = orjson.loads(body).get("model") or conv.model or profile.default_model
    new = Cassette(
        path=target,
        meta={
            "provider": profile.name,
            "scenario": scenario.id,
            "model": str(model),
            "endpoint": wire.path,
            **contacted,
            "source": "emulated" if is_loopback(contacted.get("address") or contacted["host"]) else "recorded",
            "recorded": today.isoformat(),
            "harness_version": __version__,
            **({"fault": "drop"} if dropped is not None else {}),
        },
        interactions=[
            Interaction(
                RecordedRequest(
                    wire.method,
                    recorded_url,
                    body,
                    scrub_headers({k: [v] for k, v in wire.headers.items()}, request=True, secrets=secrets),
                ),
                RecordedResponse(
                    response.status_code,
                    scrub_text(data.decode("utf-8", errors="replace"), secrets).encode(),
                    scrub_headers(response_headers, request=False, secrets=secrets),
                    scrub_text(response.reason_phrase, secrets),
                ),
            )
        ],
    )
    if path.is_file():
        old = load_cassette(path)
        was = old.interactions[0].response.status if old.interactions else None
        if was is not None and was // 100 != response.status_code // 100 and not allow_status_change:
            report.refused[scenario.id] = (
                f"{scenario.id}: the provider answered {response.status_code} where the cassette holds {was}; "
                f"kept {path} (check the base URL and key, or record with --allow-status-change)"
            )
            return
        before, after = _outcome(profile.name, old), _outcome(profile.name, new)
        changes = diff(before, after)
        if changes:
            report.drift[scenario.id] = render_diff(changes)
    _save_checked(new, secrets)
    report.recorded.append(scenario.id)


def _save_checked(cassette: Cassette, secrets: tuple[str, ...]) -> None:
    """Write the cassette only when the bytes about to be written hold no key: not the key used
    (in any case, escaped or not, or a long piece of it) and no key of a declared shape; and only
    when libyaml's and the pure-Python loader both read it."""
    where = str(cassette.path)
    text = dump_cassette(cassette)
    if contains_secret(text, secrets) or find_key(unescape_ascii(text)) is not None:
        raise InputError("the recorded response still holds a key after scrubbing; nothing written", where=where)
    readings = [yaml.load(text, Loader=loader) for loader in LOADERS]
    if any(reading != readings[0] for reading in readings):
        raise InputError("libyaml and the pure-Python loader would read the cassette otherwise", where=where)
    parse_cassette(readings[0], cassette.path)
    atomic_write(cassette.path, text)


def accept(scenario: Scenario, provider: str, cassette: Path, root: Path | None = None) -> None:
    """Make the freshly recorded outcome the provider's expected form (an explicit `--accept`).

    `overrides.<provider>` becomes the minimal delta between the shared expected form and the
    outcome, so the other providers stay as they were and a reviewer reads only what differs; the
    file is rewritten through YAML in block style (comments are not kept). With `root`, a scenario
    of a lower layer is first copied into `root` (an override of the same id), and the copy changes.
    """
    (outcome,) = _outcome(provider, load_cassette(cassette))[:1]
    path = own_copy(scenario, root) if root is not None else scenario.path
    data = parse_yaml(path.read_text(encoding="utf-8"))
    overrides: dict[str, Any] = {}
    for key, value in (data.get("overrides") or {}).items():  # this provider leaves shared keys
        others = [name for name in override_providers(key) if name != provider]
        if others:
            overrides[", ".join(others) if len(others) < len(override_providers(key)) else key] = value
    data["overrides"] = overrides
    for key in ("message", "partial"):
        part = outcome.get(key)
        if isinstance(part, dict):
            outcome[key] = {k: v for k, v in part.items() if k not in ("provider", "model")}
    if data.get("expected") is None and not overrides:  # a new scenario: the outcome is its expected form
        data["expected"] = outcome
    else:
        base = deep_merge(data.get("expected"), {})  # shared form, as the other providers see it
        delta = minimal_override(base, outcome)
        if delta != {}:
            overrides[provider] = delta
    if not overrides:
        data.pop("overrides")
    try:  # read the same by libyaml and the pure-Python loader, or not written at all
        text = dump_yaml(data, width=110)
    except ValueError as exc:
        raise InputError(f"cannot accept the outcome: {exc}", where=str(path)) from None
    atomic_write(path, text)


def recordable(
    root: Path,
    provider: str,
    scenario_ids: list[str] | None = None,
    layers: tuple[Path, ...] = (),
    *,
    own: bool = False,
) -> list[Scenario]:
    """The scenarios `record` would visit for `provider` (recorded checks, not declared unsupported),
    from every layer when `layers` (bottom first, `root` on top) are given; with `own`, only the
    scenarios whose file is in `root` (a project's own, not the ones it layers over)."""
    out = []
    top = root.resolve()
    for scenario in load_layered(layers or (root,), only=scenario_ids):
        if own and not scenario.path.resolve().is_relative_to(top):
            continue
        entry = scenario.entry(provider)
        if scenario.check in RECORDED_CHECKS and not (entry is not None and entry.unsupported):
            out.append(scenario)
    return out


def record(
    root: Path,
    provider: str,
    *,
    mode: RecordMode = "once",
    scenario_ids: list[str] | None = None,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
    only_failing: bool = False,
    today: date | None = None,
    accept_outcomes: bool = False,
    on_start: Callable[[str], None] | None = None,
    on_done: Callable[[str], None] | None = None,
    require_keys: bool = False,
    runtime: Any = None,
    runtime_name: str | None = None,
    layers: tuple[Path, ...] = (),
    own: bool = False,
    allow_status_change: bool = False,
) -> RecordReport:
    """Record `provider`'s cassettes; `on_start`/`on_done` are told each scenario id (for a progress bar).

    With `layers` (bottom first, `root` on top) every layer's scenarios are recorded, and what is
    written (cassettes, accepted outcomes) goes into `root` alone: a lower layer's cassette in use is
    kept or replaced by one in `root`, a lower layer's scenario is copied into `root` to be changed.

    Without a key the provider is skipped (reported), or with `require_keys` refused (`MissingKeyError`).
    `only_failing` judges the cells with `runtime` (default: the reference runtime). `own`: only the
    scenarios of `root` itself. A new answer of another status class than the cassette's is not
    written (`report.refused`) unless `allow_status_change`."""
    if mode not in RECORD_MODES:
        raise InputError(f"record mode must be one of {', '.join(RECORD_MODES)}", where="--record-mode")
    if mode == "none":
        raise InputError("record mode `none` replays only; choose once, new_episodes or all", where="--record-mode")
    canonical = get_profile(provider)
    profile = canonical.with_base_url(base_url) if base_url else canonical
    report = RecordReport()
    try:
        key = resolve_key(profile, os.environ if env is None else env)
    except MissingKeyError as exc:
        if require_keys:
            raise
        report.skipped.append(str(exc))
        return report
    scenarios = recordable(root, provider, scenario_ids, layers, own=own)
    if only_failing:
        from conformance.harness import HarnessContext, run_check

        judge = ReferenceRuntime() if runtime is None else runtime
        ctx = HarnessContext(root=root, runtime=judge, runtime_name=runtime_name or "reference", layers=layers)
        scenarios = [s for s in scenarios if run_check(s, provider, ctx).verdict in ("fail", "error")]
        mode = "all"
    for scenario in scenarios:
        if on_start is not None:
            on_start(scenario.id)
        record_scenario(
            scenario,
            profile,
            canonical=canonical,
            root=root,
            key=key,
            mode=mode,
            transport=transport,
            today=today or date.today(),
            report=report,
            allow_status_change=allow_status_change,
        )
        if accept_outcomes and scenario.id in report.recorded:
            accept(scenario, provider, root / scenario.cassette_rel(provider), root)
        if on_done is not None:
            on_done(scenario.id)
    return report
