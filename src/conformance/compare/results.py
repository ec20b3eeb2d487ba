"""What a check produces: a verdict for one scenario × provider, with the diff behind it."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["pass", "fail", "unsupported", "missing", "error", "skipped", "not_offered"]
"""pass/fail: judged; unsupported: a provider fact; missing: no evidence yet; error: misuse or a crash;
skipped: the runtime under test lacks a capability the check needs; not_offered: the runtime declares it does
not offer this provider, feature or field (its `Declaration`), counted apart from fail."""
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)


class DiffEntry(BaseModel):
    """One difference between expected and actual, at a contract path like `message.content[0].text`."""

    model_config = ConfigDict(extra="forbid")

    path: str
    change: Literal["changed", "added", "removed", "type_changed"]
    expected: Any = None
    actual: Any = None


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
    evidence: Literal["authored", "recorded", "emulated"] | None = None
    """Where the cassette came from: written by hand (`authored`), recorded from a server on this
    machine such as the emulator (`emulated`), or recorded from the live provider (`recorded`), as
    its `meta` says. Only `recorded` is live evidence."""
