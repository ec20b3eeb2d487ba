"""A small library with its own pytest configuration (markers, --strict-markers, testpaths), into
which `conformance init` is run."""

from __future__ import annotations

from pathlib import Path

PYPROJECT = """\
[project]
name = "mylib"
version = "1.0"

[tool.pytest.ini_options]
markers = ["network: needs the network"]
addopts = "--strict-markers"
testpaths = ["tests"]
"""

LIB_TEST = """\
import pytest


@pytest.mark.network
def test_the_library():
    assert True
"""


def make_library(where: Path) -> Path:
    """The library in `where` (created): pyproject.toml and one marked test."""
    (where / "tests").mkdir(parents=True)
    (where / "pyproject.toml").write_text(PYPROJECT)
    (where / "tests" / "test_lib.py").write_text(LIB_TEST)
    return where
