"""The README's `pytest -n auto` needs pytest-xdist: an extra pulls it in and the README says which."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_xdist_extra_pulls_in_pytest_xdist_and_the_readme_names_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert any(req.startswith("pytest-xdist") for req in project["optional-dependencies"]["xdist"])
    readme = (ROOT / "README.md").read_text()
    plugin_lines = [line for line in readme.splitlines() if re.match(r"pytest -m provider .*-n auto", line)]
    assert plugin_lines and all(f"{project['name']}[xdist]" in line for line in plugin_lines)
