"""The count table of docs/runtimes.md, recomputed from fresh runs of the example adapters.

    python scripts/runtime_counts.py            # print the table
    python scripts/runtime_counts.py --check    # exit 1 when docs/runtimes.md says otherwise
    python scripts/runtime_counts.py --write    # rewrite the tables in docs/runtimes.md

Cells (provider × feature) as matrix.json counts them, per runtime and provider group, for the
library versions of examples/constraints.txt. tests/examples/test_runtime_counts.py runs --check.

The second table lists every red row (fail or error) of every example adapter with the providers
it is red on and, written by hand, its class (`defect`: the library does it wrong against the
provider's documented semantics; `limitation`: it does not do or expose it; `convention`: it keeps
a form the provider allows where the normalized form chooses another) and what the library does.
`--write` keeps what was written for a row and adds new rows as `unread`; `--check` (and the test)
fail on an `unread` row and on rows no longer red, or red on other providers.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # count_table, beside this script
from count_table import CountTable, Row, count_cells

ROOT = Path(__file__).resolve().parents[1]
TABLE = CountTable("<!-- counts:begin -->", "<!-- counts:end -->", "providers")
CLASSES = CountTable("<!-- classes:begin -->", "<!-- classes:end -->", "row")
"""The classification table: read and rewritten between its markers like the count tables."""
UNREAD = "unread"
OPENAI_CHAT = ("openai", "openrouter", "xai", "fireworks", "groq", "deepseek", "mistral", "openai-compatible")
GROUPS: dict[str, tuple[str, ...]] = {"OpenAI-chat": OPENAI_CHAT, "anthropic": ("anthropic",), "gemini": ("gemini",)}


@dataclass(frozen=True)
class Run:
    """One adapter over its providers."""

    spec: str | None
    """`package.module:factory`, or None for the reference runtime."""
    groups: tuple[str, ...]


RUNS: dict[str, Run] = {
    "reference": Run(None, ("OpenAI-chat", "anthropic", "gemini")),
    "openai-sdk": Run("examples.openai_sdk:make", ("OpenAI-chat",)),
    "anthropic-sdk": Run("examples.anthropic_sdk:make", ("anthropic",)),
    "pydantic-ai": Run("examples.pydantic_ai_runtime:make", ("OpenAI-chat", "anthropic", "gemini")),
    "pydantic-ai (decode only)": Run(
        "examples.pydantic_ai_runtime:make_decoder", ("OpenAI-chat", "anthropic", "gemini")
    ),
}


_FRESH: dict[tuple[str, str], tuple[Row, list[Any]]] = {}


def _fresh(label: str, group: str) -> tuple[Row, list[Any]]:
    """(count row, scenario results) of one fresh run of an adapter over one group (once per process)."""
    if (label, group) not in _FRESH:
        from conformance.runtime.loading import load_runtime

        runtime, name = load_runtime(RUNS[label].spec)
        results: list[Any] = []
        (row,) = count_cells(label, runtime, name, {group: GROUPS[group]}, results)
        _FRESH[(label, group)] = (row, results)
    return _FRESH[(label, group)]


def count(label: str, groups: tuple[str, ...] | None = None) -> list[Row]:
    """(runtime label, provider group, cell verdict counts) of one fresh run (of some of its groups)."""
    return [_fresh(label, g)[0] for g in groups or RUNS[label].groups]


Red = tuple[str, str, str]
"""(runtime label, scenario, verdict) of a red row."""


def red_rows(label: str) -> dict[Red, list[str]]:
    """Every red row of an adapter's fresh runs: (label, scenario, verdict) → the providers it is red on."""
    order = [p for g in GROUPS.values() for p in g]
    out: dict[Red, list[str]] = {}
    for group in RUNS[label].groups:
        for r in _fresh(label, group)[1]:
            if r.verdict in ("fail", "error"):
                out.setdefault((label, r.scenario, r.verdict), []).append(r.provider)
    return {k: sorted(v, key=order.index) for k, v in sorted(out.items())}


def documented_classes() -> dict[Red, tuple[str, str, str]]:
    """The classification table: (label, scenario, verdict) → (providers, class, what the library does)."""
    out: dict[Red, tuple[str, str, str]] = {}
    for line in CLASSES.documented().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        label, scenario, verdict, providers, cls, reading = (*cells[:5], " | ".join(cells[5:]))
        out[(label, scenario.strip("`"), verdict)] = (providers, cls, reading)
    return out


def render_classes(fresh: dict[Red, list[str]], known: dict[Red, tuple[str, str, str]]) -> str:
    head = "| runtime | row | verdict | providers | class | what the library does |"
    body = []
    for key, providers in fresh.items():
        _, cls, reading = known.get(key, ("", UNREAD, ""))
        label, scenario, verdict = key
        body.append(f"| {label} | `{scenario}` | {verdict} | {', '.join(providers)} | {cls} | {reading} |")
    return "\n".join([head, "|---|---|---|---|---|---|", *body])


def _classes(argv: list[str]) -> int:
    """--write: rewrite the classification table keeping what was written; --check: exit 1 when it drifted."""
    fresh = {k: v for label in RUNS if label != "reference" for k, v in red_rows(label).items()}
    table = render_classes(fresh, documented_classes())
    if "--write" in argv:
        CLASSES.write(table)
    elif "--check" in argv:
        documented = {k: v[0] for k, v in documented_classes().items()}
        if UNREAD in table or {k: ", ".join(v) for k, v in fresh.items()} != documented:
            sys.stdout.write(f"docs/runtimes.md's red rows drifted; fresh runs give:\n{table}\n")
            return 1
    return 0


render, documented, documented_row = TABLE.render, TABLE.documented, TABLE.documented_row


def main(argv: list[str] | None = None) -> int:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # the examples package
    args = sys.argv[1:] if argv is None else argv
    done = TABLE.main(args, (__doc__ or "").splitlines()[0], lambda: [row for label in RUNS for row in count(label)])
    return done or _classes(args)


if __name__ == "__main__":
    raise SystemExit(main())
