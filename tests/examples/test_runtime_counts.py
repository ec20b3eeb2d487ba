"""docs/runtimes.md's count table is what fresh runs of the example adapters give (scripts/runtime_counts.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")
pytest.importorskip("pydantic_ai")

ROOT = Path(__file__).resolve().parents[2]

# the libraries' own warnings while they run (a deprecated model name; pydantic-ai serializing thinking parts)
pytestmark = [
    pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning"),
]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("runtime_counts", ROOT / "scripts" / "runtime_counts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("runtime_counts", module)
    spec.loader.exec_module(module)
    return module


COUNTS = _script()


@pytest.mark.parametrize(
    ("label", "group"), [(label, group) for label, run in COUNTS.RUNS.items() for group in run.groups]
)
def test_the_documented_counts_are_reproduced(label: str, group: str) -> None:
    (fresh,) = COUNTS.render(COUNTS.count(label, (group,))).splitlines()[2:]
    assert fresh == COUNTS.documented_row(label, group), (
        f"docs/runtimes.md's counts for {label} drifted; `python scripts/runtime_counts.py --write` rewrites "
        "the table — then read the changed cells and update the classification below it"
    )
