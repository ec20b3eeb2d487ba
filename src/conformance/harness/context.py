"""What every check needs: where the project is, which runtime is under test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.codecs.request_form import RequestFinding, failing, render_findings
from conformance.compare import DiffEntry, ScenarioResult, Verdict, diff
from conformance.runtime.protocol import Declaration, declaration_of, missing_capabilities
from conformance.scenarios import Scenario, load_layered


@dataclass
class HarnessContext:
    """What every check is given: the project root, the runtime under test, per-run options."""

    root: Path
    """Project root: scenario cassette paths are relative to it."""
    runtime: Any
    """The runtime under test: any object with some of the capability methods of `runtime.protocol`."""
    runtime_name: str = "reference"
    extras: dict[str, Any] = field(default_factory=dict)
    """Per-run options checks may read (e.g. hypothesis settings for generated checks)."""
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Work a check shares across providers within one run (e.g. decoded handoff sources)."""
    declared: Declaration | None = None
    layers: tuple[Path, ...] = ()
    """The project roots layered under `root`, bottom first (`scenarios.layers`); empty for `root` alone."""
    """What the runtime declares it offers (default: read from the runtime, see `declaration`)."""
    _root_resolved: Path | None = field(default=None, init=False, repr=False, compare=False)

    def scenarios(self) -> list[Scenario]:
        """Every scenario of the project: its layers' when it has several, else `root/scenarios`."""
        return load_layered(self.layers or (self.root,))

    @property
    def declaration_given(self) -> bool:
        """Whether the runtime declared anything (a `declaration` attribute), rather than offering all."""
        return self.declared is not None or getattr(self.runtime, "declaration", None) is not None

    @property
    def declaration(self) -> Declaration:
        """The runtime's declaration (`runtime.protocol.declaration_of`), read once."""
        if self.declared is None:
            self.declared = declaration_of(self.runtime, self.runtime_name)
        return self.declared

    def rel(self, path: Path) -> str:
        """`path` relative to the project root when it is inside it (for reports), else as given."""
        if path.is_absolute() and self.root.is_absolute():
            try:  # a path built from the root: no file system access needed
                return path.relative_to(self.root).as_posix()
            except ValueError:
                pass
        try:
            return path.resolve().relative_to(self._resolved_root()).as_posix()
        except ValueError:
            return str(path)

    def _resolved_root(self) -> Path:
        if self._root_resolved is None:
            self._root_resolved = self.root.resolve()
        return self._root_resolved


def result(
    scenario: Scenario,
    provider: str,
    verdict: Verdict,
    reason: str = "",
    **fields: Any,
) -> ScenarioResult:
    """A `ScenarioResult` for `scenario` × `provider`, its identity fields filled in from the scenario."""
    return ScenarioResult(
        scenario=scenario.id,
        title=scenario.spec.title,
        feature=scenario.feature,
        check=scenario.check,
        provider=provider,
        verdict=verdict,
        reason=reason,
        scenario_path=str(scenario.path),
        **fields,
    )


def requires(ctx: HarnessContext, scenario: Scenario, provider: str, *capabilities: str) -> ScenarioResult | None:
    """`skipped` naming what the runtime under test lacks, or None when it has every capability."""
    missing = missing_capabilities(ctx.runtime, capabilities)
    if not missing:
        return None
    names = ", ".join(f"`{c}`" for c in missing)
    return result(scenario, provider, "skipped", f"runtime {ctx.runtime_name} does not implement {names}")


def unplayed_failure(scenario: Scenario, provider: str, unplayed: list[int], **fields: Any) -> ScenarioResult | None:
    """A fail naming the cassette interactions the check never played; None when all were."""
    if not unplayed:
        return None
    return result(scenario, provider, "fail", f"interactions {unplayed} of the cassette were never played", **fields)


def mismatch_failure(scenario: Scenario, provider: str, exc: Exception, **fields: Any) -> ScenarioResult:
    """A fail for a request the cassette does not hold (the replay's `ReplayMismatch`). When its body
    differs from the recorded one (same method and URL), the differences the provider would reject
    or misread are the typed diff (`request[N].<path>`), and every finding is listed in `requests`."""
    findings: list[RequestFinding] = list(getattr(exc, "findings", None) or [])
    bad = failing(findings)
    if not bad:
        return result(scenario, provider, "fail", f"request not in cassette: {exc}", **fields)
    number = getattr(exc, "number", None)
    prefix = f"request[{number}]" if number else "request"
    entries = [finding_entry(prefix, f) for f in bad]
    reason = (
        f"{prefix} differs from the recorded one as {provider} reads it:\n"
        + render_findings(bad)
        + f"\n(request not in cassette: {exc})"
    )
    return result(scenario, provider, "fail", reason, diff=entries, requests=findings, **fields)


def finding_entry(prefix: str, finding: RequestFinding) -> DiffEntry:
    """A request finding as a typed diff entry at `prefix.path` (extra, missing or wrong)."""
    path = ".".join(p for p in (prefix, finding.path) if p)
    if finding.expected is None and finding.actual is None:  # a broken rule: the request is wrong there
        return DiffEntry(path=path, change="changed")
    if finding.expected is None:
        return DiffEntry(path=path, change="added", actual=finding.actual)
    if finding.actual is None:
        return DiffEntry(path=path, change="removed", expected=finding.expected)
    return DiffEntry(path=path, change="changed", expected=finding.expected, actual=finding.actual)


def judge(
    scenario: Scenario,
    provider: str,
    expected: Any,
    actual: Any,
    *,
    ctx: HarnessContext,
    ignore: tuple[str, ...] = (),
    **fields: Any,
) -> ScenarioResult:
    """pass when equal up to the ignore rules, else fail with the diff. Optional fields the runtime
    declares it does not expose are left out (`Declaration.unexposed_paths`)."""
    hidden = ctx.declaration.unexposed_paths()
    entries = diff(expected, actual, ignore=(*ignore, *scenario.spec.ignore, *hidden))
    if entries:
        n = len(entries)
        return result(
            scenario,
            provider,
            "fail",
            f"{n} difference{'s' if n > 1 else ''} from the expected normalized form",
            expected=expected,
            actual=actual,
            diff=entries,
            **fields,
        )
    return result(
        scenario,
        provider,
        "pass",
        "matches the expected normalized form",
        expected=expected,
        actual=actual,
        **fields,
    )


Check = Callable[[Scenario, str, HarnessContext], ScenarioResult]
