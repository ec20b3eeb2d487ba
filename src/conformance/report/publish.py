"""`conformance publish`: a static compatibility site from a directory of runs.

Input: every `matrix.json` below a directory (one per release or per runtime; its folder names the
run, e.g. `runs/v1.4.0/matrix.json`). Output, all relative links, no script, nothing fetched, so it
works from `file://` and any static host; every text is escaped by the templates:

    index.html                    the latest run of each runtime, one compact matrix each
    runtimes/<runtime>.html       its latest matrix and every run with its totals
    providers/<provider>.html     per runtime: every feature across the runs (history)
    features/<feature>.html       per runtime: every provider across the runs (history)
    badges/<runtime>/<provider>.json   shields.io endpoint badges (latest run)
    api/index.json, api/providers/<provider>.json, api/features/<feature>.json

A cell is a colour block and `passed/judged`: judged counts the scenarios the runtime was held to
(pass, fail, error, missing); unsupported (a provider fact), not offered and skipped ones are
shown apart and never in the denominator.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.exceptions import InputError
from conformance.fileio import atomic_write
from conformance.report.html import ENV, when
from conformance.report.matrix import Cell, FeatureRow, Matrix
from conformance.scenarios.catalog import GROUPS

JUDGED = ("pass", "fail", "error", "missing")
"""Scenario verdicts a cell's denominator counts."""
APART = ("unsupported", "not_offered", "skipped", "policy")
"""Scenario verdicts shown beside the count, never in it."""
MAX_DEPTH = 3
"""How deep below the runs directory a `matrix.json` is looked for."""


@dataclass(frozen=True)
class Stats:
    """What one cell shows: a colour (`tone`) and `passed/judged`, the rest apart."""

    passed: int
    judged: int
    failed: int
    missing: int
    apart: dict[str, int]

    @property
    def tone(self) -> str:
        """`pass` (all judged passed), `fail` (a fail or error), `missing`, or `none` (nothing judged)."""
        if self.failed:
            return "fail"
        if self.missing:
            return "missing"
        return "pass" if self.judged else "none"

    @property
    def text(self) -> str:
        return f"{self.passed}/{self.judged}" if self.judged else "–"

    @property
    def label(self) -> str:
        parts = [f"{self.passed} of {self.judged} passed"] if self.judged else ["nothing judged"]
        parts += [f"{n} {v.replace('_', ' ')}" for v, n in self.apart.items() if n]
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "tone": self.tone,
            "passed": self.passed,
            "judged": self.judged,
            **self.apart,
        }


def stats(cell: Cell | None) -> Stats:
    counts = cell.counts if cell is not None else {}
    return Stats(
        passed=counts.get("pass", 0),
        judged=sum(counts.get(v, 0) for v in JUDGED),
        failed=counts.get("fail", 0) + counts.get("error", 0),
        missing=counts.get("missing", 0),
        apart={v: counts.get(v, 0) for v in APART},
    )


@dataclass
class Run:
    """One `matrix.json`: its label (the folder it was found in) and the matrix."""

    label: str
    matrix: Matrix
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cells = {(c.provider, c.feature): c for c in self.matrix.cells}

    def totals(self) -> Stats:
        merged: dict[str, int] = {}
        for c in self.matrix.cells:
            for v, n in c.counts.items():
                merged[v] = merged.get(v, 0) + n
        return stats(Cell(provider="", feature="", verdict="pass", counts=merged, results=[]))


@dataclass
class Runtime:
    """Every run of one runtime under test, oldest first."""

    name: str
    slug: str
    runs: list[Run]

    @property
    def latest(self) -> Run:
        return self.runs[-1]


SLUG_CHARS = 80
"""Longest page name kept whole; a longer one is cut and ends in a hash of the whole name."""
_KEPT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")


def slug(text: str) -> str:
    """The page name of a runtime, provider or feature name: one name, one page, never another's.

    Lowercase letters, digits, `-`, `_` and a `.` after the first character are kept; every other
    character (`/`, `~`, a capital, a leading dot, a space, …) becomes `~` and its UTF-8 bytes in
    hex (`openai/b` is `openai~2fb`, `openai-b` stays), so two names never share a page, whatever the
    disk's letter case. The empty name is `~`. A name longer than `SLUG_CHARS` once written keeps its
    first part and ends in `~~` and 16 hex digits of its sha256 (no unshortened name holds `~~`)."""
    if not text:
        return "~"
    out = "".join(c if c in _KEPT and (c != "." or i) else _escaped(c) for i, c in enumerate(text))
    if len(out) <= SLUG_CHARS:
        return out
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return out[: SLUG_CHARS - 18] + "~~" + digest


def _escaped(char: str) -> str:
    return "".join(f"~{b:02x}" for b in char.encode("utf-8", "surrogatepass"))


def collect(runs_dir: Path) -> list[Runtime]:
    """The runs below `runs_dir`, grouped by runtime, each group oldest first; typed errors name the file."""
    if not runs_dir.is_dir():
        raise InputError("no such directory of runs", where=str(runs_dir))
    found = sorted(p for p in runs_dir.rglob("matrix.json") if len(p.relative_to(runs_dir).parts) <= MAX_DEPTH + 1)
    if not found:
        raise InputError("no matrix.json below it (expected RUNS/<release>/matrix.json)", where=str(runs_dir))
    groups: dict[str, list[Run]] = {}
    for path in found:
        label = path.parent.relative_to(runs_dir).as_posix() if path.parent != runs_dir else path.parent.name
        matrix = Matrix.load(path)
        groups.setdefault(matrix.runtime, []).append(Run(label, matrix))
    return [
        Runtime(name, slug(name), sorted(groups[name], key=lambda r: (r.matrix.generated_at, r.label)))
        for name in sorted(groups)
    ]


def _providers(runtimes: list[Runtime]) -> list[str]:
    seen: dict[str, None] = {}
    for rt in runtimes:
        for run in rt.runs:
            for p in run.matrix.providers:
                seen.setdefault(p, None)
    return list(seen)


def _features(runtimes: list[Runtime]) -> list[FeatureRow]:
    rows: dict[str, FeatureRow] = {}
    for rt in runtimes:
        for run in rt.runs:  # the newest title wins
            for f in run.matrix.features:
                rows[f.id] = f
    order = {g: i for i, g in enumerate(GROUPS)}
    return sorted(rows.values(), key=lambda f: order.get(f.group, len(order)))


def _grouped(features: list[FeatureRow]) -> list[tuple[str, list[FeatureRow]]]:
    groups: dict[str, list[FeatureRow]] = {}
    for f in features:
        groups.setdefault(f.group, []).append(f)
    return list(groups.items())


def _badge(provider: str, run: Run) -> dict[str, Any]:
    cells = [stats(c) for (p, _), c in run.cells.items() if p == provider]
    passed = sum(s.passed for s in cells)
    judged = sum(s.judged for s in cells)
    failing = sum(1 for s in cells if s.tone == "fail")
    color = "lightgrey" if not judged else "brightgreen" if passed == judged else "red" if failing else "yellow"
    return {"schemaVersion": 1, "label": provider, "message": f"{passed}/{judged} passing", "color": color}


def publish(runs_dir: Path, out: Path) -> list[Path]:
    """Build the site under `out` from the runs below `runs_dir`; returns the files written."""
    runtimes = collect(runs_dir)
    providers, features = _providers(runtimes), _features(runtimes)
    pslug = {p: slug(p) for p in providers}
    fslug = {f.id: slug(f.id) for f in features}
    common = {
        "runtimes": runtimes,
        "providers": providers,
        "features": features,
        "groups": _grouped(features),
        "pslug": pslug,
        "fslug": fslug,
        "stats": stats,
        "when": when,
    }
    written: list[Path] = []

    def page(rel: str, template: str, **extra: Any) -> None:
        depth = rel.count("/")
        html = ENV.get_template(template).render(**common, root="../" * depth, **extra)
        written.append(_write(out / rel, html))

    page("index.html", "site_index.html.j2")
    for rt in runtimes:
        page(f"runtimes/{rt.slug}.html", "site_runtime.html.j2", rt=rt)
        for p in providers:
            written.append(_write(out / "badges" / rt.slug / f"{pslug[p]}.json", _json(_badge(p, rt.latest))))
    for p in providers:
        page(f"providers/{pslug[p]}.html", "site_provider.html.j2", provider=p)
    for f in features:
        page(f"features/{fslug[f.id]}.html", "site_feature.html.j2", feature=f)
    written += _api(out, runtimes, providers, features, pslug, fslug)
    return written


def _api(
    out: Path,
    runtimes: list[Runtime],
    providers: list[str],
    features: list[FeatureRow],
    pslug: dict[str, str],
    fslug: dict[str, str],
) -> list[Path]:
    def runs_of(rt: Runtime, pick: Any) -> list[dict[str, Any]]:
        return [{"run": r.label, "generated_at": r.matrix.generated_at, "cells": pick(r)} for r in rt.runs]

    index = {
        "runtimes": [
            {
                "name": rt.name,
                "page": f"runtimes/{rt.slug}.html",
                "runs": [
                    {"run": r.label, "generated_at": r.matrix.generated_at, **r.totals().to_json()} for r in rt.runs
                ],
            }
            for rt in runtimes
        ],
        "providers": {p: f"api/providers/{pslug[p]}.json" for p in providers},
        "features": {f.id: f"api/features/{fslug[f.id]}.json" for f in features},
    }
    written = [_write(out / "api" / "index.json", _json(index))]
    for p in providers:
        doc = {
            "provider": p,
            "runtimes": {
                rt.name: runs_of(
                    rt,
                    lambda r, p=p: {
                        f.id: stats(r.cells.get((p, f.id))).to_json() for f in features if (p, f.id) in r.cells
                    },
                )
                for rt in runtimes
            },
        }
        written.append(_write(out / "api" / "providers" / f"{pslug[p]}.json", _json(doc)))
    for f in features:
        doc = {
            "feature": f.id,
            "title": f.title,
            "runtimes": {
                rt.name: runs_of(
                    rt,
                    lambda r, f=f: {
                        p: stats(r.cells.get((p, f.id))).to_json() for p in providers if (p, f.id) in r.cells
                    },
                )
                for rt in runtimes
            },
        }
        written.append(_write(out / "api" / "features" / f"{fslug[f.id]}.json", _json(doc)))
    return written


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _write(path: Path, text: str) -> Path:
    return atomic_write(path, text)
