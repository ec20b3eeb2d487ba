"""What a check produces: a verdict for one scenario × provider, with the diff behind it."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from conformance.codecs.request_form import RequestFinding

Verdict = Literal["pass", "fail", "unsupported", "missing", "error", "skipped", "not_offered", "policy"]
"""pass/fail: judged; unsupported: a provider fact; missing: no evidence yet; error: misuse or a crash;
skipped: the runtime under test lacks a capability the check needs; not_offered: the runtime declares it does
not offer this provider, feature or field (its `Declaration`), counted apart from fail; policy: a row whose
expectation is the harness's recommended policy (a wait ceiling, back-off growth, an attempt cap, a
client-side clamp) differs from what a runtime does that never declared that policy — counted apart,
never a fail and never a defect."""
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)


Basis = Literal["provider", "policy"]
"""What an expectation rests on: a `provider` fact (with its source), or a `policy` of the harness."""
EvidenceClass = Literal["defect", "limitation", "policy", "unverified"]
"""What a red result says once its evidence is weighed (`harness.evidence`): a `defect` (a wrong value,
an extra one or a crash, on a sourced wire under a sourced rule), a `limitation` (a missing value or a row
not offered, sourced alike), a `policy` difference, or `unverified` (the wire or the rule has no source)."""
EVIDENCE_CLASSES: tuple[EvidenceClass, ...] = get_args(EvidenceClass)

FailKind = Literal["wrong", "missing", "extra", "crash"]
"""What a difference is: a `wrong` value, a `missing` one (expected, not given), an `extra` one (given,
not expected), or a `crash` (the runtime raised). Wrong, extra and crash are defects; missing and
`not_offered` are gaps."""
FAIL_KINDS: tuple[FailKind, ...] = get_args(FailKind)
DEFECTS: frozenset[str] = frozenset({"wrong", "extra", "crash"})
"""Fail kinds that say the runtime did something wrong (the rest say it did not do something)."""
_KIND_OF_CHANGE: dict[str, FailKind] = {
    "changed": "wrong",
    "type_changed": "wrong",
    "removed": "missing",
    "added": "extra",
}


class DiffEntry(BaseModel):
    """One difference between expected and actual, at a contract path like `message.content[0].text`."""

    model_config = ConfigDict(extra="forbid")

    path: str
    change: Literal["changed", "added", "removed", "type_changed"]
    expected: Any = None
    actual: Any = None
    kind: FailKind | None = None
    """`wrong`, `missing` or `extra`, from `change` when not given."""
    basis: Basis | None = None
    """On a policy row: whether this difference breaks a provider fact (a wait shorter than the
    provider asked for, a request the provider reads otherwise) or only the recommended policy."""

    @model_validator(mode="after")
    def _kind(self) -> DiffEntry:
        if self.kind is None:
            self.kind = _KIND_OF_CHANGE[self.change]
        return self


def fail_kind(diff: list[DiffEntry]) -> FailKind | None:
    """The most serious kind among the differences: wrong > extra > missing; None without any."""
    kinds = {e.kind for e in diff}
    return next((k for k in ("wrong", "extra", "missing") if k in kinds), None)


class ScenarioResult(BaseModel):
    """The verdict of one scenario for one provider, with the evidence behind it (diff, cassette, reason)."""

    model_config = ConfigDict(extra="forbid")

    scenario: str
    title: str
    feature: str
    check: str
    provider: str
    verdict: Verdict
    reason: str = ""
    scenario_path: str | None = None
    cassette: str | None = None
    expected: Any = None
    actual: Any = None
    diff: list[DiffEntry] = Field(default_factory=list)
    examples: int | None = None
    """Generated checks: examples run."""
    fail_kind: FailKind | None = None
    """For `fail` and `error` verdicts about the runtime: the most serious kind of its differences, or
    `crash` when it raised. Filled from `diff` when not given."""
    traceback: str | None = None
    """When the runtime under test raised: its traceback (the frames of the runtime, last lines last)."""
    requests: list[RequestFinding] = Field(default_factory=list)
    """How the runtime's own request differed from the recorded one, as the provider reads it
    (`path`, `expected`, `actual`, `verdict` `fail` or `note`, `fact`). On a decode row these never
    decide the verdict: the recorded request stands in for the runtime's, so its decoding is judged."""
    evidence: Literal["authored", "recorded", "emulated"] | None = None
    """Where the cassette came from: written by hand (`authored`), recorded from a server on this
    machine such as the emulator (`emulated`), or recorded from the live provider (`recorded`), as
    its `meta` says. Only `recorded` is live evidence."""
    basis: Basis = "provider"
    """What the row's expectation rests on: a provider fact, or a policy of the harness (its scenario's `basis`)."""
    wire_source: str | None = None
    """Where the replayed wire comes from: `recorded: <recording>` (real traffic), `authored: <doc it
    follows>` (an authored cassette whose `meta` cites a document), or `authored, no source`."""
    rule_source: str | None = None
    """Where the rule the row applies comes from: the scenario's `source`, or for request findings the
    rule book's `RequestFinding.source`; `policy: <setting>` on policy rows; None when unsourced."""
    evidence_class: EvidenceClass | None = None
    """For results that are not green (fail, error about the runtime, not offered, policy): what the
    evidence makes of them (`harness.evidence.classify`)."""

    @model_validator(mode="after")
    def _typed(self) -> ScenarioResult:
        if self.verdict == "fail" and self.fail_kind is None:
            self.fail_kind = fail_kind(self.diff) or "wrong"
        return self

    @property
    def defect(self) -> bool:
        """A fail or error that says the runtime did something wrong (a wrong or extra value, a crash)."""
        return self.verdict in ("fail", "error") and self.fail_kind in DEFECTS

    @property
    def gap(self) -> bool:
        """A result that says the runtime did not do something: a missing value, or a row not offered."""
        return self.verdict == "not_offered" or (self.verdict == "fail" and self.fail_kind == "missing")
