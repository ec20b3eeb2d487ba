"""The count table of docs/runtimes.md, recomputed from fresh runs of the example adapters.

    python scripts/runtime_counts.py            # print the table
    python scripts/runtime_counts.py --check    # exit 1 when docs/runtimes.md says otherwise
    python scripts/runtime_counts.py --write    # rewrite the table in docs/runtimes.md

Cells (provider × feature) as matrix.json counts them, per runtime and provider group, for the
library versions of examples/constraints.txt. tests/examples/test_runtime_counts.py runs --check.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # count_table, beside this script
from count_table import CountTable, Row, count_cells

ROOT = Path(__file__).resolve().parents[1]
TABLE = CountTable("<!-- counts:begin -->", "<!-- counts:end -->", "providers")
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


def count(label: str, groups: tuple[str, ...] | None = None) -> list[Row]:
    """(runtime label, provider group, cell verdict counts) of one fresh run (of some of its groups)."""
    from conformance.runtime.loading import load_runtime

    run = RUNS[label]
    runtime, name = load_runtime(run.spec)
    return count_cells(label, runtime, name, {g: GROUPS[g] for g in groups or run.groups})


render, documented, documented_row = TABLE.render, TABLE.documented, TABLE.documented_row


def main(argv: list[str] | None = None) -> int:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # the examples package
    return TABLE.main(argv, (__doc__ or "").splitlines()[0], lambda: [row for label in RUNS for row in count(label)])


if __name__ == "__main__":
    raise SystemExit(main())
