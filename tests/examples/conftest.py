"""The example adapters' count runs (scripts/runtime_counts.py, scripts/typescript_counts.py) kept in
pytest's cache directory between test processes, keyed by every input that can change a verdict
(scripts/count_cache.py); `CONFORMANCE_COUNT_CACHE=0` makes every run fresh."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.fixture(autouse=True, scope="session")
def _count_runs_cache(request: pytest.FixtureRequest) -> Iterator[None]:
    cache = getattr(request.config, "cache", None)
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    count_cache = importlib.import_module("count_cache")
    count_cache.use(cache.mkdir("conformance-count-runs") if cache is not None else None)
    yield
    count_cache.use(None)
