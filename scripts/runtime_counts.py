"""The count table of docs/runtimes.md, recomputed from fresh runs of the example adapters.

    python scripts/runtime_counts.py            # print the table
    python scripts/runtime_counts.py --check    # exit 1 when docs/runtimes.md says otherwise
    python scripts/runtime_counts.py --write    # rewrite the table in docs/runtimes.md

Cells (provider × feature) as matrix.json counts them, per runtime and provider group, for the
library versions of examples/constraints.txt. tests/examples/test_runtime_counts.py runs --check.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "runtimes.md"
BEGIN, END = "<!-- counts:begin -->", "<!-- counts:end -->"
OPENAI_CHAT = ("openai", "openrouter", "xai", "fireworks", "groq", "deepseek", "mistral", "openai-compatible")
GROUPS: dict[str, tuple[str, ...]] = {"OpenAI-chat": OPENAI_CHAT, "anthropic": ("anthropic",), "gemini": ("gemini",)}
COLUMNS = ("pass", "fail", "error", "not_offered", "skipped", "unsupported", "missing")


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


def count(label: str, groups: tuple[str, ...] | None = None) -> list[tuple[str, str, Counter[str]]]:
    """(runtime label, provider group, cell verdict counts) of one fresh run (of some of its groups)."""
    from conformance.harness import HarnessContext, run_all
    from conformance.harness.run import build_matrix
    from conformance.runtime.loading import load_runtime
    from conformance.scenarios import load_scenarios

    run = RUNS[label]
    groups = groups or run.groups
    runtime, name = load_runtime(run.spec)
    providers = [p for g in groups for p in GROUPS[g]]
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=name)
    results = run_all(load_scenarios(ROOT / "scenarios"), providers, ctx)
    matrix = build_matrix(results, providers, ctx, scenario_dir=ROOT / "scenarios")
    return [(label, group, Counter(c.verdict for c in matrix.cells if c.provider in GROUPS[group])) for group in groups]


def render(rows: list[tuple[str, str, Counter[str]]]) -> str:
    head = "| runtime | providers | " + " | ".join(c.replace("_", " ") for c in COLUMNS) + " |"
    rule = "|---|---|" + "---:|" * len(COLUMNS)
    body = [f"| {label} | {group} | " + " | ".join(str(n[c]) for c in COLUMNS) + " |" for label, group, n in rows]
    return "\n".join([head, rule, *body])


def documented() -> str:
    """The table between the markers of docs/runtimes.md."""
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end].strip()


def documented_row(label: str, group: str) -> str | None:
    """The documented table's line of one runtime label and provider group."""
    rows = [line for line in documented().splitlines() if line.startswith(f"| {label} | {group} |")]
    return rows[0] if rows else None


def write(table: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOC.write_text(text[:start] + "\n" + table + "\n" + text[end:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when docs/runtimes.md's table differs")
    mode.add_argument("--write", action="store_true", help="rewrite the table in docs/runtimes.md")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    table = render([row for label in RUNS for row in count(label)])
    if args.write:
        write(table)
    elif args.check:
        if table != documented():
            sys.stdout.write(f"docs/runtimes.md's counts drifted; fresh runs give:\n{table}\n")
            return 1
    else:
        sys.stdout.write(table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
