"""The evidence under a verdict, and the class that follows from it.

Every result names where its wire comes from and where its rule comes from:

- **wire source**: `recorded: <recording>` (real traffic: a recording of the shipped corpus, or a
  cassette whose `meta` says it was recorded from the live provider); `authored: <doc>` (an authored
  cassette whose `meta` cites the provider document it follows: `sources` (the `[{url, quote, shapes}]`
  citations `conformance lint --realism` reads), `doc` / `docs` / `cites` / `follows` with an optional
  `quote`, or a URL in its `source`); `authored: matches real <column> traffic` (an authored cassette
  every response shape of which the real recordings of its column show, or its `meta.sources` cite:
  `harness.realism.matches_real`); `authored, no source`; `emulated, no source`
  (recorded from a server on this machine). A check that replays no provider answer has no wire to
  source (`None`, which does not count against the class).
- **rule source**: for request findings, the rule book's `RequestFinding.source`; else the source of
  the scenario's entry for the provider, else the scenario's `source`; `policy: <settings>` on policy
  rows, `policy the runtime declared: <settings>` when it fails a policy it declared (a policy row
  that fails on a provider fact inside it is sourced as any row). Empty or None: unsourced.

The class of a result that is not green: `policy` for policy rows (the `policy` verdict, and rows not
offered because the runtime cannot be given the setting); `defect` for a wrong or extra value or a crash,
`limitation` for a missing value or a row not offered — each only when both the wire and the rule are
sourced; `unverified` otherwise (and for an `error` that is not the runtime's crash).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from conformance.compare import ScenarioResult
from conformance.compare.results import EvidenceClass
from conformance.harness import realism
from conformance.replay.cassette import cassette_evidence, cassette_meta
from conformance.scenarios import Scenario

NO_SOURCE = "authored, no source"
CITING_KEYS = ("doc", "docs", "cites", "follows")
"""Keys of a cassette's `meta` that name the provider document the authored wire follows."""
_URL = re.compile(r"https?://\S+")
REAL_DIRS = ("corpus/",)
"""Cassette paths (relative to the project root) that hold real recorded traffic."""


def _citation(meta: dict[str, Any]) -> str | None:
    cited = [c for c in meta.get("sources") or [] if isinstance(c, dict) and isinstance(c.get("url"), str)]
    if cited:  # the per-shape citations `conformance lint --realism` reads (docs/scenarios.md)
        url, quote = str(cited[0]["url"]).strip(), cited[0].get("quote")
        quoted = f' — "{quote.strip()}"' if isinstance(quote, str) and quote.strip() else ""
        more = f" (+{len(cited) - 1} more)" if len(cited) > 1 else ""
        return url + quoted + more
    for key in CITING_KEYS:
        value = meta.get(key)
        if isinstance(value, list):
            value = " ; ".join(str(v) for v in value if v)
        if isinstance(value, str) and value.strip():
            quote = meta.get("quote")
            return value.strip() + (f' — "{quote.strip()}"' if isinstance(quote, str) and quote.strip() else "")
    source = meta.get("source")
    if isinstance(source, str):
        found = _URL.search(source)
        if found:
            return source.strip()
    return None


def wire_source(cassette: str | None, root: Path) -> str | None:
    """Where the wire a row replays comes from (see the module's doc); None: the row replays none."""
    if not cassette:
        return None
    rel = cassette.replace("\\", "/")
    if rel.startswith(REAL_DIRS):
        return f"recorded: {rel}"
    path = Path(cassette) if Path(cassette).is_absolute() else root / cassette
    try:
        meta = cassette_meta(path)
    except Exception:  # an unreadable cassette is another row's error; here it is simply unsourced
        return NO_SOURCE
    kind = cassette_evidence(meta)
    if kind == "recorded":
        return f"recorded: {rel}"
    if kind == "emulated":
        return "emulated, no source"
    cited = _citation(meta)
    if cited:
        return f"authored: {cited}"
    matched = realism.matches_real(path, root)
    if matched is not None:
        seen, cited_shapes = matched.count("seen"), matched.count("cited")
        counted = f"{seen} shapes seen, {cited_shapes} cited" if cited_shapes else f"all {seen} shapes seen"
        return f"authored: matches real {matched.name} traffic ({counted})"
    return NO_SOURCE


def wire_sourced(source: str | None) -> bool:
    """Whether a wire source counts: real traffic, a cited document, or no wire at all."""
    return source is None or source.startswith(("recorded:", "authored: "))


def rule_source(res: ScenarioResult, scenario: Scenario) -> str | None:
    """Where the rule a result applies comes from (see the module's doc); None: unsourced."""
    if scenario.spec.basis == "policy":
        settings = ", ".join(scenario.spec.policy_settings)
        if res.verdict != "fail":
            return "policy: " + settings
        if not any(e.basis == "provider" for e in res.diff):
            return "policy the runtime declared: " + settings
    # a policy row that fails on a provider fact inside it is sourced as any row
    failing = [f for f in res.requests if f.verdict == "fail"]
    only_requests = bool(res.diff) and all(
        e.path.startswith("request") and not e.path.startswith("requests") for e in res.diff
    )
    entry = scenario.entry(res.provider)
    stated = (entry.source if entry is not None else None) or scenario.spec.source
    if failing and (only_requests or not stated):
        sources = sorted({f.source for f in failing})
        return None if "" in sources else " ; ".join(sources)
    return stated or None


def evidence_class(res: ScenarioResult, wire: str | None, rule: str | None) -> EvidenceClass | None:
    """The class of a result that is not green; None for pass, unsupported, missing and skipped."""
    if res.verdict == "policy" or (res.basis == "policy" and res.verdict == "not_offered"):
        return "policy"
    if res.verdict not in ("fail", "error", "not_offered"):
        return None
    sourced = wire_sourced(wire) and bool(rule)
    if res.gap:
        return "limitation" if sourced else "unverified"
    if res.defect:
        return "defect" if sourced else "unverified"
    return "unverified"


def classify(res: ScenarioResult, scenario: Scenario, root: Path) -> ScenarioResult:
    """`res` with its wire source, rule source and class filled in (`root`: the project's)."""
    if res.verdict in ("pass", "unsupported", "missing", "skipped"):
        return res
    cassette = res.cassette
    # a row not offered, or one whose runtime crashed, was given no cassette: the scenario's is its wire
    if (
        cassette is None
        and res.verdict in ("not_offered", "error")
        and scenario.check not in ("repair", "transcript", "store")
    ):
        path = scenario.cassette_path(res.provider, root)
        cassette = (
            (path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)) if path.is_file() else None
        )
    res.wire_source = wire_source(cassette, root)
    res.rule_source = rule_source(res, scenario)
    res.evidence_class = evidence_class(res, res.wire_source, res.rule_source)
    return res


__all__ = ["CITING_KEYS", "NO_SOURCE", "classify", "evidence_class", "rule_source", "wire_source", "wire_sourced"]
