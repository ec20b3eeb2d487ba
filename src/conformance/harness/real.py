"""Real traffic as judged results: every generation call of the shipped corpus, decoded by the
runtime under test and compared with its reviewed expected form (`evidence.expected`).

Each call is judged once, the way a decode row judges its answer: the runtime's `decode` is handed
the recorded status, headers, body (one chunk) and stream flag, with the provider column that
reads the recording (`evidence.corpus.profile_for`) and the model its request named; its answer is
compared with the expected form under the same ignore rules and alignments (ids the wire does not
carry, the body's own error codes, thinking order, a provider's plain stop on tool calls) and
without the optional fields the runtime declares it does not expose. The call then counts in every
cell of its column whose feature its expected form shows (`evidence.derive.features_of`); in a
cell whose feature (or a field the feature is about, `focus.FEATURE_FOCUS`) the runtime declares it
does not offer, it counts as `not_offered`.

Each recording is read once per process, when a run first judges its column (`cases` reads them
all): later runs of the same process judge from memory.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from conformance.capabilities import matrix_providers
from conformance.codecs import codec_for
from conformance.compare import DiffEntry, diff
from conformance.evidence.corpus import API_DIALECTS, Interaction, profile_for, read_catalog, read_entry
from conformance.evidence.derive import features_of, sha256
from conformance.evidence.expected import WRITE_COMMAND, ExpectedCall, bundled_corpus, read_expected
from conformance.exceptions import InputError
from conformance.fileio import read_regular
from conformance.harness.checks.common import (
    calls_stop_aligned,
    canonical_outcome,
    invented_ids_aligned,
    own_codes_aligned,
    thinking_order_aligned,
)
from conformance.harness.context import HarnessContext
from conformance.harness.focus import FEATURE_FOCUS
from conformance.harness.guard import guarded
from conformance.jsonvalue import safe
from conformance.model import Outcome
from conformance.report.backing import FILES_SHOWN
from conformance.report.matrix import RealBacking, RealCall, RealColumn, RealTraffic, RealVerdict
from conformance.runtime.protocol import decode_response, missing_capabilities
from conformance.secrets import redact


@dataclasses.dataclass(frozen=True)
class Source:
    """Where a recording comes from (its catalog entry)."""

    url: str
    repo: str
    license: str


@dataclasses.dataclass(frozen=True)
class RealCase:
    """One generation call of the corpus with what judges it."""

    call: Interaction
    source: Source
    expected: ExpectedCall | None
    """None when no form is written for this call (or it was written from another recording)."""
    features: frozenset[str]

    @property
    def column(self) -> str:
        return self.call.profile.name


@dataclasses.dataclass
class RealResult:
    """A judged call: its verdict, why, and the diff."""

    case: RealCase
    verdict: RealVerdict
    reason: str = ""
    diff: list[DiffEntry] = dataclasses.field(default_factory=list)

    def record(self) -> RealCall:
        return RealCall(
            call=self.case.call.where,
            verdict=self.verdict,
            reason=safe(self.reason, shorten=True),
            diff=self.diff,
            source=self.case.source.url,
            source_repo=self.case.source.repo,
            license=self.case.source.license,
        )


def _source(entry: dict[str, Any]) -> Source:
    repo, commit, path = (str(entry.get(k, "")) for k in ("source_repo", "commit", "source_path"))
    return Source(f"https://github.com/{repo}/blob/{commit}/{path}", repo, str(entry.get("license", "")))


def _recording_cases(corpus: Path, entry: dict[str, Any]) -> list[RealCase]:
    data = read_regular(corpus / entry["path"])
    calls, _ = read_entry(corpus, entry, data=data)
    forms = read_expected(corpus, entry["path"])
    by_index = {c.index: c for c in forms.calls} if forms is not None and forms.sha256 == sha256(data) else {}
    source = _source(entry)
    out: list[RealCase] = []
    for it in calls:
        expected = by_index.get(it.index)
        features = features_of(it, Outcome.model_validate(expected.outcome)) if expected is not None else set()
        out.append(RealCase(it, source, expected, frozenset(features)))
    return out


def cases(corpus: Path | None = None) -> tuple[RealCase, ...]:
    """Every generation call of the corpus (default: the bundled one), read once per process:
    `cases()`, `cases(None)` and `cases(bundled_corpus())` read the same copy."""
    return _cases(corpus or bundled_corpus())


@functools.cache
def _cases(where: Path) -> tuple[RealCase, ...]:
    return tuple(case for i in range(len(_catalog(where))) for case in _entry_cases(where, i))


@functools.cache
def _catalog(where: Path) -> tuple[tuple[str, dict[str, Any]], ...]:
    """(column, entry) for each catalog entry of an API with a dialect, by path: the column is the
    name of the profile that reads the entry's calls (`RealCase.column`)."""
    if not (where / "catalog.json").is_file():
        return ()
    entries = sorted(read_catalog(where), key=lambda e: str(e["path"]))
    return tuple(
        (profile_for(entry["provider"], API_DIALECTS[entry["api"]]).name, entry)
        for entry in entries
        if entry.get("api") in API_DIALECTS
    )


@functools.cache
def _entry_cases(where: Path, i: int) -> tuple[RealCase, ...]:
    """The calls of the `i`-th entry of `_catalog(where)`, read once per process."""
    return tuple(_recording_cases(where, _catalog(where)[i][1]))


def _columns_cases(where: Path, columns: set[str]) -> list[RealCase]:
    """The calls of `columns`, in the order of `cases`: only their recordings are read."""
    chosen = [i for i, (column, _) in enumerate(_catalog(where)) if column in columns]
    return [case for i in chosen for case in _entry_cases(where, i)]


def redaction_aligned(expected: Any, actual: Any) -> Any:
    """`actual` with an error message that names a key-shaped string read as its redacted form,
    where that is the expected message. Real error bodies quote the key a client sent ("Incorrect
    API key provided: sk-…"); the stored forms keep such strings redacted (secrets never reach a
    report), and a runtime that hands the message over as the provider sent it reads it right."""
    if not isinstance(expected, dict) or not isinstance(actual, dict):
        return actual
    out = actual
    for key in ("error", "partial"):
        want, got = expected.get(key), out.get(key)
        if key == "partial" and isinstance(want, dict) and isinstance(got, dict):
            want, got = want.get("error"), got.get("error")
            if isinstance(want, dict) and isinstance(got, dict) and _redacts_to(got, want):
                out = {**out, "partial": {**out["partial"], "error": {**got, "message": want["message"]}}}
        elif isinstance(want, dict) and isinstance(got, dict) and _redacts_to(got, want):
            out = {**out, "error": {**got, "message": want["message"]}}
    return out


def _redacts_to(got: dict[str, Any], want: dict[str, Any]) -> bool:
    mine, theirs = got.get("message"), want.get("message")
    return isinstance(mine, str) and isinstance(theirs, str) and mine != theirs and redact(mine) == theirs


def judged_columns(providers: list[str], corpus_columns: Iterable[str]) -> list[str]:
    """The columns whose real calls a run over `providers` judges: those of the run, and, when
    the run covers every matrix column, the generic profiles that read providers without their own."""
    everything = set(matrix_providers()) <= set(providers)
    extra = sorted({c for c in corpus_columns if c not in providers and c not in matrix_providers()})
    return [*providers, *(extra if everything else [])]


def judge_call(case: RealCase, ctx: HarnessContext) -> RealResult:
    """One call decoded by the runtime under test and compared with its expected form."""
    who = ctx.runtime_name
    if missing_capabilities(ctx.runtime, ("decode",)):
        return RealResult(case, "skipped", f"runtime {who} does not implement `decode`")
    if not ctx.declaration.offers_provider(case.column):
        return RealResult(case, "not_offered", f"runtime {who} does not support {case.column} (its declaration)")
    if case.expected is None:
        return RealResult(case, "unverified", f"no expected form written for this call: run `{WRITE_COMMAND}`")
    if not case.expected.judged:
        return RealResult(case, "unverified", f"the expected form is not reviewed: {case.expected.sdk}")
    it, view = case.call, guarded(ctx)
    try:
        actual = decode_response(
            view.runtime,
            case.column,
            it.status,
            dict(it.headers),
            [it.body],
            it.stream,
            model=it.model or it.profile.default_model,
        )
    except InputError as exc:
        return RealResult(case, "error", str(exc))
    except Exception as exc:  # the runtime under test raised: its crash is the verdict
        return RealResult(case, "error", f"{type(exc).__name__}: {exc}")
    try:
        actual = canonical_outcome(actual)
    except ValidationError as exc:
        return RealResult(case, "fail", f"the runtime's output is not a normalized outcome: {exc.errors()[0]['msg']}")
    expected = case.expected.outcome
    aligned, _ = invented_ids_aligned(expected, actual, it.body)
    aligned, _ = own_codes_aligned(expected, aligned, it.body)
    aligned, _ = thinking_order_aligned(expected, aligned)
    aligned, _ = calls_stop_aligned(expected, aligned, codec_for(it.profile).calls_end_plainly)
    aligned = redaction_aligned(expected, aligned)
    entries = diff(expected, aligned, ignore=ctx.declaration.unexposed_paths())
    if not entries:
        return RealResult(case, "pass")
    for entry in entries:
        entry.expected = safe(entry.expected, shorten=True)
        entry.actual = safe(entry.actual, shorten=True)
    n = len(entries)
    return RealResult(case, "fail", f"{n} difference{'s' if n > 1 else ''} from the expected normalized form", entries)


def judge_all(ctx: HarnessContext, providers: list[str], corpus: Path | None = None) -> list[RealResult]:
    """Every real call of the columns a run over `providers` judges (`judged_columns`)."""
    where = corpus or bundled_corpus()
    columns = set(judged_columns(providers, {column for column, _ in _catalog(where)}))
    return [judge_call(case, ctx) for case in _columns_cases(where, columns)]


def _cell_verdict(result: RealResult, feature: str, ctx: HarnessContext) -> RealVerdict:
    """The call's verdict in the cell of `feature`: `not_offered` where the runtime declares it
    does not offer the feature or a field the feature is about."""
    if result.verdict in ("skipped", "not_offered"):
        return result.verdict
    decl = ctx.declaration
    if not decl.offers_feature(feature) or not all(decl.exposes(p) for p in FEATURE_FOCUS.get(feature, ())):
        return "not_offered"
    return result.verdict


@dataclasses.dataclass
class CellTraffic:
    """The real calls of one cell: their tally and the recordings they come from (source file
    address → source repository)."""

    traffic: RealTraffic = dataclasses.field(default_factory=RealTraffic)
    recordings: dict[str, str] = dataclasses.field(default_factory=dict)

    def backing(self) -> RealBacking:
        """A cell's backing drawn from its calls alone (a recording the manifest does not list yet)."""
        repos: dict[str, int] = {}
        for repo in self.recordings.values():
            repos[repo] = repos.get(repo, 0) + 1
        return RealBacking(
            recordings=len(self.recordings),
            calls=self.traffic.calls,
            sources=sorted(repos, key=lambda r: (-repos[r], r)),
            files=list(self.recordings)[:FILES_SHOWN],
            traffic=self.traffic,
        )


def tally(
    results: list[RealResult], providers: list[str], ctx: HarnessContext
) -> tuple[dict[tuple[str, str], CellTraffic], list[RealColumn]]:
    """Per (provider, feature) the real traffic of that cell, and per column its totals (a column
    of the run without any real call is `authored_only`)."""
    cells: dict[tuple[str, str], CellTraffic] = {}
    columns: dict[str, RealTraffic] = {}
    for res in results:
        record = res.record() if res.verdict in ("fail", "error") else None
        columns.setdefault(res.case.column, RealTraffic()).add(res.verdict, record)
        for feature in sorted(res.case.features):
            verdict = _cell_verdict(res, feature, ctx)
            cell = cells.setdefault((res.case.column, feature), CellTraffic())
            cell.traffic.add(verdict, record)
            cell.recordings.setdefault(res.case.source.url, res.case.source.repo)
    ordered = [*providers, *sorted(c for c in columns if c not in providers)]
    out = [
        RealColumn(
            provider=p,
            authored_only=p not in columns,
            in_matrix=p in providers,
            traffic=columns.get(p, RealTraffic()),
        )
        for p in ordered
    ]
    return cells, out


def to_json(res: RealResult) -> dict[str, Any]:
    """A judged call as plain JSON (what a test report carries from a worker)."""
    return {
        "call": res.case.call.where,
        "verdict": res.verdict,
        "reason": res.reason,
        "diff": [e.model_dump(mode="json") for e in res.diff],
    }


def from_json(items: list[dict[str, Any]], corpus: Path | None = None) -> list[RealResult]:
    """Judged calls read back from `to_json` (their cases looked up in the corpus read here)."""
    by_call = {case.call.where: case for case in cases(corpus)}
    return [
        RealResult(by_call[d["call"]], d["verdict"], d["reason"], [DiffEntry.model_validate(e) for e in d["diff"]])
        for d in items
        if d["call"] in by_call
    ]


def column_cases(column: str, corpus: Path | None = None) -> list[RealCase]:
    """The real calls one column reads."""
    return _columns_cases(corpus or bundled_corpus(), {column})


def render_failures(results: list[RealResult], limit: int = 10) -> str:
    """The failing and erring calls of `results`, each with its source and diff (the first `limit`)."""
    from conformance.compare import render_diff

    bad = [r for r in results if r.verdict in ("fail", "error")]
    lines = [f"{len(bad)} of {len(results)} real calls failed or erred"]
    for res in bad[:limit]:
        lines += ["", f"{res.case.call.where} [{res.case.column}] {res.verdict}: {res.reason}"]
        lines.append(f"source: {res.case.source.url} ({res.case.source.license})")
        if res.diff:
            lines.append(render_diff(res.diff))
    if len(bad) > limit:
        lines.append(f"… and {len(bad) - limit} more")
    return "\n".join(lines)
