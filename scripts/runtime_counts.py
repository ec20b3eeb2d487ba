"""The count table of docs/runtimes.md, recomputed from fresh runs of the example adapters.

    python scripts/runtime_counts.py            # print the table
    python scripts/runtime_counts.py --check    # exit 1 when docs/runtimes.md says otherwise
    python scripts/runtime_counts.py --write    # rewrite the tables in docs/runtimes.md

Cells (provider × feature) as matrix.json counts them, per runtime and provider group, for the
library versions of examples/constraints.txt. tests/examples/test_runtime_counts.py runs --check.

The second table lists every red row (fail or error) of every example adapter, and every row that
differs from the recommended policy (`policy`), with the providers it is on and — computed from the
results' evidence (`conformance.harness.classify`), never written by hand — its class (`defect`: a
wrong or extra value or a crash on a sourced wire under a sourced rule; `limitation`: a missing value
or a row not offered, sourced alike; `policy`; `unverified`: the wire or the rule has no source), its
wire source and its rule source. Written by hand and kept by `--write` (keyed by row): what the
library does, and what a search of the library's issue tracker found (an existing report, a
maintainer's word that it is intended — a design choice, then —, or nothing). `--write` adds new rows
as `unread`; `--check` (and the test) fail on an `unread` row, on a row whose providers, class or
sources drifted, and on a `defect` without a tracker search.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # count_table, beside this script
import count_cache
from count_table import CountTable, Row, count_cells

ROOT = Path(__file__).resolve().parents[1]
TABLE = CountTable("<!-- counts:begin -->", "<!-- counts:end -->", "providers")
CLASSES = CountTable("<!-- classes:begin -->", "<!-- classes:end -->", "row")
"""The classification table: read and rewritten between its markers like the count tables."""
UNREAD = "unread"
OPENAI_CHAT = ("openai", "openrouter", "xai", "fireworks", "groq", "deepseek", "mistral", "openai-compatible")
GROUPS: dict[str, tuple[str, ...]] = {
    "OpenAI-chat": OPENAI_CHAT,
    "anthropic": ("anthropic",),
    "gemini": ("gemini",),
    "vertex": ("vertex",),
}


@dataclass(frozen=True)
class Run:
    """One adapter over its providers."""

    spec: str | None
    """`package.module:factory`, or None for the reference runtime."""
    groups: tuple[str, ...]
    isolated: bool = False
    """Run in a process of its own: a library whose readings depend on what else the process has
    imported (litellm's token counter picks its tokenizer by what is importable and loaded) counts
    the same alone as beside the other adapters."""
    variant_of: str | None = None
    """The label of the same library through another client (its sync one): a red row both have
    keeps that label's reading and tracker note."""


RUNS: dict[str, Run] = {
    "reference": Run(None, ("OpenAI-chat", "anthropic", "gemini")),
    "openai-sdk": Run("examples.openai_sdk:make", ("OpenAI-chat",)),
    "anthropic-sdk": Run("examples.anthropic_sdk:make", ("anthropic",)),
    "openai-sdk (async)": Run("examples.openai_sdk:make_async", ("OpenAI-chat",), variant_of="openai-sdk"),
    "anthropic-sdk (async)": Run("examples.anthropic_sdk:make_async", ("anthropic",), variant_of="anthropic-sdk"),
    "pydantic-ai": Run("examples.pydantic_ai_runtime:make", ("OpenAI-chat", "anthropic", "gemini")),
    "pydantic-ai (decode only)": Run(
        "examples.pydantic_ai_runtime:make_decoder", ("OpenAI-chat", "anthropic", "gemini")
    ),
    "litellm": Run("examples.litellm_runtime:make", ("OpenAI-chat", "anthropic", "gemini"), isolated=True),
    "google-genai": Run("examples.google_genai_runtime:make", ("gemini", "vertex")),
}


_FRESH: dict[tuple[str, str], tuple[Row, list[Any]]] = {}


def _fresh(label: str, group: str) -> tuple[Row, list[Any]]:
    """(count row, scenario results) of one fresh run of an adapter over one group (once per process;
    read from scripts/count_cache.py's cache when the caller turned it on and no input changed)."""
    if (label, group) not in _FRESH:
        if count_cache.enabled():
            data = count_cache.stored(f"runtime_counts {label} {group}", lambda: _dumped(*_run(label, group)))
            _FRESH[(label, group)] = _loaded(label, group, data)
        else:
            _FRESH[(label, group)] = _run(label, group)
    return _FRESH[(label, group)]


def _run(label: str, group: str) -> tuple[Row, list[Any]]:
    return _isolated(label, group) if RUNS[label].isolated else _in_process(label, group)


def _in_process(label: str, group: str) -> tuple[Row, list[Any]]:
    from conformance.runtime.loading import load_runtime

    runtime, name = load_runtime(RUNS[label].spec)
    results: list[Any] = []
    (row,) = count_cells(label, runtime, name, {group: GROUPS[group]}, results)
    return row, results


FRESH_FLAG = "--fresh-json"
"""`runtime_counts.py --fresh-json LABEL GROUP`: one run in this process, printed as JSON (for `_isolated`)."""


def _isolated(label: str, group: str) -> tuple[Row, list[Any]]:
    """The run of `_in_process`, in a new Python process."""
    import json
    import subprocess

    done = subprocess.run(
        [sys.executable, __file__, FRESH_FLAG, label, group], capture_output=True, text=True, cwd=ROOT, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{label} over {group}: the count run failed:\n{done.stderr[-2000:]}")
    return _loaded(label, group, json.loads(done.stdout.strip().splitlines()[-1]))


def _dumped(row: Row, results: list[Any]) -> dict[str, Any]:
    """A run as JSON: its counts and its scenario results."""
    return {"counts": dict(row[2]), "results": [r.model_dump(mode="json") for r in results]}


def _loaded(label: str, group: str, data: dict[str, Any]) -> tuple[Row, list[Any]]:
    """The run `_dumped` wrote."""
    from conformance.compare import ScenarioResult

    results = [ScenarioResult.model_validate(r) for r in data["results"]]
    return (label, group, Counter(data["counts"])), results


def _print_fresh(label: str, group: str) -> int:
    import json

    sys.stdout.write(json.dumps(_dumped(*_in_process(label, group))) + "\n")
    return 0


def count(label: str, groups: tuple[str, ...] | None = None) -> list[Row]:
    """(runtime label, provider group, cell verdict counts) of one fresh run (of some of its groups)."""
    return [_fresh(label, g)[0] for g in groups or RUNS[label].groups]


Red = tuple[str, str, str]
"""(runtime label, scenario, verdict) of a red row (or a row that differs from the recommended policy)."""
SHOWN = ("fail", "error", "policy")
"""Verdicts of the rows the classification table lists: red ones, and policy differences (never red)."""


@dataclass(frozen=True)
class Evidence:
    """What fresh runs say of one row: its providers, and per provider its class, wire and rule source."""

    providers: list[str]
    classes: dict[str, str]
    wires: dict[str, str]
    rules: dict[str, str]

    def _joined(self, per: dict[str, str]) -> str:
        values = [per[p] for p in self.providers]
        if len(set(values)) == 1:
            return values[0]
        groups: dict[str, list[str]] = {}
        for p in self.providers:
            groups.setdefault(per[p], []).append(p)
        return "; ".join(f"{v} ({', '.join(ps)})" for v, ps in groups.items())

    @property
    def cls(self) -> str:
        return self._joined(self.classes)

    @property
    def wire(self) -> str:
        return self._joined(self.wires)

    @property
    def rule(self) -> str:
        return self._joined(self.rules)


def _cell(text: str | None, default: str) -> str:
    return (text or default).replace("|", "/").replace("\n", " ")


def evidence_rows(label: str) -> dict[Red, Evidence]:
    """Every red (or policy) row of an adapter's fresh runs, with the evidence of each provider's result."""
    order = [p for g in GROUPS.values() for p in g]
    out: dict[Red, Evidence] = {}
    for group in RUNS[label].groups:
        for r in _fresh(label, group)[1]:
            if r.verdict in SHOWN:
                ev = out.setdefault((label, r.scenario, r.verdict), Evidence([], {}, {}, {}))
                ev.providers.append(r.provider)
                ev.classes[r.provider] = r.evidence_class or "unverified"
                ev.wires[r.provider] = _cell(r.wire_source, "none replayed")
                ev.rules[r.provider] = _cell(r.rule_source, "no source")
    for ev in out.values():
        ev.providers.sort(key=order.index)
    return dict(sorted(out.items()))


def red_rows(label: str) -> dict[Red, list[str]]:
    """Every red (or policy) row of an adapter's fresh runs: (label, scenario, verdict) → its providers."""
    return {k: v.providers for k, v in evidence_rows(label).items()}


FIXED = 7
"""Columns of the classification table before the hand-written ones (what the library does, tracker)."""
HEAD = (
    "| runtime | row | verdict | providers | class | wire source | rule source | what the library does "
    "| issue tracker |"
)


@dataclass(frozen=True)
class Documented:
    """One row of the classification table as docs/runtimes.md has it."""

    providers: str
    cls: str
    wire: str
    rule: str
    reading: str
    """What the library does (written by hand)."""
    tracker: str
    """What a search of the library's issue tracker found (written by hand)."""


def documented_classes() -> dict[Red, Documented]:
    """The classification table: (label, scenario, verdict) → its documented cells."""
    out: dict[Red, Documented] = {}
    for line in CLASSES.documented().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        label, scenario, verdict, providers, cls, wire, rule = cells[:FIXED]
        reading, tracker = " | ".join(cells[FIXED:-1]), cells[-1] if len(cells) > FIXED else ""
        scenario = scenario.split("`")[1] if scenario.count("`") >= 2 else scenario  # past its repro links
        out[(label, scenario, verdict)] = Documented(providers, cls, wire, rule, reading, tracker)
    return out


REPRO = ROOT / "docs" / "repro"
"""The standalone script of each defect row (`conformance repro … --out docs/repro`)."""


def repro_links(label: str, scenario: str, ev: Evidence) -> str:
    """Links to the scripts of a row's defect providers (docs/repro/<library>-<scenario>-<provider>.py)."""
    library = label.replace(" (decode only)", "-decode-only").replace(" (async)", "-async")
    defects = [p for p in ev.providers if ev.classes[p] == "defect"]
    found = [p for p in defects if (REPRO / f"{library}-{scenario}-{p}.py").is_file()]
    named = len(defects) > 1
    return "".join(f" [repro{': ' + p if named else ''}](repro/{library}-{scenario}-{p}.py)" for p in found)


def render_classes(fresh: dict[Red, Evidence], known: dict[Red, Documented]) -> str:
    """The table from fresh evidence, keeping the hand-written reading and tracker note of each row
    (a row once classed under another verdict keeps them too); a new row's reading is `unread`."""
    by_row = {(k[0], k[1]): v for k, v in known.items()}
    body = []
    for key, ev in fresh.items():
        run = RUNS.get(key[0])
        sibling = (run.variant_of, key[1], key[2]) if run is not None and run.variant_of else None
        doc = known.get(key) or by_row.get((key[0], key[1])) or (known.get(sibling) if sibling else None)
        reading, tracker = (doc.reading, doc.tracker) if doc else (UNREAD, "")
        label, scenario, verdict = key
        body.append(
            f"| {label} | `{scenario}`{repro_links(label, scenario, ev)} | {verdict} | {', '.join(ev.providers)} "
            f"| {ev.cls} | {ev.wire} | {ev.rule} "
            f"| {reading} | {tracker or '—'} |"
        )
    return "\n".join([HEAD, "|---|---|---|---|---|---|---|---|---|", *body])


def untracked_defects(table: str) -> list[str]:
    """Rows classed `defect` whose issue-tracker search is not written down."""
    out = []
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if "defect" in cells[4] and (cells[-1] in ("", "—") or cells[-1].startswith("not searched")):
            out.append(f"{cells[0]} {cells[1]}")
    return out


def _classes(argv: list[str]) -> int:
    """--write: rewrite the classification table from fresh evidence, keeping what was written by
    hand; --check: exit 1 when it drifted, a row is unread, or a defect has no tracker search."""
    fresh = {k: v for label in RUNS if label != "reference" for k, v in evidence_rows(label).items()}
    table = render_classes(fresh, documented_classes())
    if "--write" in argv:
        CLASSES.write(table)
    elif "--check" in argv:
        problems = untracked_defects(table)
        if UNREAD in table or table != CLASSES.documented() or problems:
            sys.stdout.write(f"docs/runtimes.md's red rows drifted; fresh runs give:\n{table}\n")
            if problems:
                sys.stdout.write(f"defects without an issue-tracker search: {problems}\n")
            return 1
    return 0


render, documented, documented_row = TABLE.render, TABLE.documented, TABLE.documented_row


def main(argv: list[str] | None = None) -> int:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # the examples package
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == [FRESH_FLAG]:
        return _print_fresh(args[1], args[2])
    done = TABLE.main(args, (__doc__ or "").splitlines()[0], lambda: [row for label in RUNS for row in count(label)])
    return done or _classes(args)


if __name__ == "__main__":
    raise SystemExit(main())
