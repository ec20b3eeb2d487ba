"""Cells that got worse between two runs (the release gate of `conformance report`).

Verdicts are ordered best to worst: pass < policy < unsupported < not_offered < skipped < missing <
fail < error (`policy`: differs from the recommended policy only). A cell
regressed when its verdict moved right (pass → fail, pass → missing, fail → error, …) or when it
passed before and is gone now; it improved when it moved left or is new.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.report.matrix import Matrix, Verdict

RANK: dict[Verdict, int] = {
    "pass": 0,
    "policy": 1,
    "unsupported": 2,
    "not_offered": 3,
    "skipped": 4,
    "missing": 5,
    "fail": 6,
    "error": 7,
}
"""Worse is higher: a cell regressed when its rank went up (pass → missing, fail → error, …)."""


@dataclass(frozen=True)
class Change:
    provider: str
    feature: str
    before: Verdict | None
    after: Verdict | None

    def __str__(self) -> str:
        return f"{self.feature}[{self.provider}]: {self.before or 'absent'} → {self.after or 'absent'}"


def _verdicts(matrix: Matrix) -> dict[tuple[str, str], Verdict]:
    return {(c.provider, c.feature): c.verdict for c in matrix.cells}


def regressions(previous: Matrix, current: Matrix) -> list[Change]:
    """Cells whose verdict got worse, or that passed before and are gone now."""
    before, after = _verdicts(previous), _verdicts(current)
    out: list[Change] = []
    for key, old in before.items():
        new = after.get(key)
        if (new is None and old == "pass") or (new is not None and RANK[new] > RANK[old]):
            out.append(Change(key[0], key[1], old, new))
    return sorted(out, key=lambda c: (c.feature, c.provider))


def improvements(previous: Matrix, current: Matrix) -> list[Change]:
    before, after = _verdicts(previous), _verdicts(current)
    out = [
        Change(key[0], key[1], before.get(key), new)
        for key, new in after.items()
        if key not in before or RANK[new] < RANK[before[key]]
    ]
    return sorted(out, key=lambda c: (c.feature, c.provider))
