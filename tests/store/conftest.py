from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.store import BACKENDS, Store
from tests.store.helpers import location, make_store


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(backend: str, tmp_path: Path) -> Iterator[Store]:
    s = make_store(backend, location(backend, tmp_path))
    yield s
    s.close()
