"""The release gate per scenario: what got worse and what got better between two runs, scenario ×
provider, as text, JSON or GitHub annotations.

Verdicts are ranked as in `regress.RANK`. A result regressed when its rank went up, or when it
passed before and is gone now; it improved when its rank went down, or when it is new and passes.
A cell hides how many scenarios broke (one failing scenario or six make the same red cell): the
gate counts scenarios, and names the provider of each."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from conformance.report.matrix import Matrix, Verdict
from conformance.report.regress import RANK


@dataclass(frozen=True)
class ScenarioChange:
    """One scenario × provider whose verdict moved between two runs."""

    scenario: str
    provider: str
    feature: str
    before: Verdict | None
    after: Verdict | None
    reason: str = ""
    """Why the current result is what it is (its first line), for a regression."""

    @property
    def label(self) -> str:
        """`scenario[provider]`, the item id `pytest -m provider` uses."""
        return f"{self.scenario}[{self.provider}]"

    def __str__(self) -> str:
        return f"{self.label} ({self.feature}): {self.before or 'absent'} → {self.after or 'absent'}"


@dataclass(frozen=True)
class GateReport:
    """Regressions and improvements between two runs, sorted by scenario then provider."""

    regressions: list[ScenarioChange]
    improvements: list[ScenarioChange]
    still_failing: list[ScenarioChange] = field(default_factory=list)
    """Results failing (or erring) in both runs: reported, never a regression."""

    def to_json(self) -> dict[str, object]:
        """The `--format json` document."""
        return {
            "regressions": [asdict(c) for c in self.regressions],
            "improvements": [asdict(c) for c in self.improvements],
            "counts": {"regressions": len(self.regressions), "improvements": len(self.improvements)},
        }


def _results(matrix: Matrix, *, real: bool = False) -> dict[tuple[str, str], tuple[str, Verdict, str]]:
    out = {(r.scenario, r.provider): (r.feature, r.verdict, r.reason) for cell in matrix.cells for r in cell.results}
    if real:
        out.update(_real_results(matrix))
    return out


def _real_results(matrix: Matrix) -> dict[tuple[str, str], tuple[str, Verdict, str]]:
    """Each column's real traffic as one result, `real[<column>]` (the `pytest -m provider` item):
    `fail` or `error` when a call failed or erred, `pass` when calls were judged and all passed."""
    out: dict[tuple[str, str], tuple[str, Verdict, str]] = {}
    for column in matrix.real_traffic or []:
        traffic = column.traffic
        verdict: Verdict | None = traffic.red or ("pass" if traffic.passed else None)
        if verdict is not None:
            out[("real", column.provider)] = ("real_traffic", verdict, f"real traffic: {traffic.summary()}")
    return out


def compare_runs(previous: Matrix, current: Matrix) -> GateReport:
    """Every scenario × provider whose verdict got worse or better from `previous` to `current`;
    each column's real traffic too (`real[<column>]`) when both runs judged it."""
    real = previous.real_traffic is not None and current.real_traffic is not None
    before, after = _results(previous, real=real), _results(current, real=real)
    worse: list[ScenarioChange] = []
    better: list[ScenarioChange] = []
    still: list[ScenarioChange] = []
    for key, (feature, old, _) in before.items():
        now = after.get(key)
        if now is None:
            if old == "pass":
                worse.append(ScenarioChange(key[0], key[1], feature, old, None, "no longer in the run"))
            continue
        new, reason = now[1], now[2]
        if new in RED and old in RED and RANK[new] <= RANK[old]:
            still.append(ScenarioChange(key[0], key[1], now[0], old, new, reason.splitlines()[0] if reason else ""))
        elif RANK[new] > RANK[old]:
            worse.append(ScenarioChange(key[0], key[1], now[0], old, new, reason.splitlines()[0] if reason else ""))
        elif RANK[new] < RANK[old]:
            better.append(ScenarioChange(key[0], key[1], now[0], old, new))
    for key, (feature, new, _) in after.items():
        if key not in before and new == "pass":
            better.append(ScenarioChange(key[0], key[1], feature, None, new))
    return GateReport(sorted(worse, key=_order), sorted(better, key=_order), sorted(still, key=_order))


RED: tuple[Verdict, ...] = ("fail", "error")


def _order(change: ScenarioChange) -> tuple[str, str]:
    return change.scenario, change.provider


def _escape_annotation(text: str, *, property_: bool = False) -> str:
    """GitHub workflow-command escaping: `%`, CR, LF always; `:` and `,` in properties."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def github_annotations(report: GateReport, scenario_paths: dict[str, str] | None = None) -> list[str]:
    """One `::error` line per regression and one `::notice` per improvement (GitHub Actions workflow
    commands), each with the scenario file when known so the annotation lands on it. Results failing
    in both runs are not annotated (the summary and the text format list them)."""
    paths = scenario_paths or {}
    lines: list[str] = []
    for kind, verb, changes in (
        ("error", "regressed", report.regressions),
        ("notice", "improved", report.improvements),
    ):
        for c in changes:
            props = [f"title={_escape_annotation(f'{verb}: {c.label}', property_=True)}"]
            if c.scenario in paths:
                props.insert(0, f"file={_escape_annotation(paths[c.scenario], property_=True)}")
            message = str(c) + (f" — {c.reason}" if c.reason else "")
            lines.append(f"::{kind} {','.join(props)}::{_escape_annotation(message)}")
    return lines


def render_text(report: GateReport) -> list[str]:
    """Plain lines (no markup: ids in brackets print as they are)."""
    lines = [f"regressed: {c}" + (f" — {c.reason}" if c.reason else "") for c in report.regressions]
    lines += [f"improved: {c}" for c in report.improvements]
    lines += [f"already failing: {c}" + (f" — {c.reason}" if c.reason else "") for c in report.still_failing]
    n, m = len(report.regressions), len(report.improvements)
    lines.append(
        f"{n} scenario result{'s' if n != 1 else ''} regressed, {m} improved"
        if n or m
        else "no scenario result regressed or improved"
    )
    return lines


def render_markdown(report: GateReport, *, base: str = "the base") -> str:
    """The gate as Markdown, for a CI step summary (`$GITHUB_STEP_SUMMARY`)."""
    n, m, k = len(report.regressions), len(report.improvements), len(report.still_failing)
    lines = [
        "## conformance release gate",
        "",
        f"Against {base}: **{n} regressed**, {m} improved, {k} already failing there (reported, not fatal).",
    ]
    for title, changes in (
        ("Regressed", report.regressions),
        ("Improved", report.improvements),
        ("Already failing on the base", report.still_failing),
    ):
        if changes:
            lines += ["", f"### {title}", "", "| result | feature | before | after | reason |", "|---|---|---|---|---|"]
            lines += [
                f"| `{c.label}` | {c.feature} | {c.before or 'absent'} | {c.after or 'absent'} | "
                f"{c.reason.replace('|', '/')} |"
                for c in changes
            ]
    return "\n".join(lines) + "\n"


def render_json(report: GateReport) -> str:
    """The `--format json` output."""
    return json.dumps(report.to_json(), ensure_ascii=False, indent=2)


def scenario_paths(matrix: Matrix) -> dict[str, str]:
    """Scenario id → its file, as the run recorded it (for annotations)."""
    return {r.scenario: r.scenario_path for c in matrix.cells for r in c.results if r.scenario_path}
