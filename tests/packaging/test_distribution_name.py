"""The package index name is the project's own: the name `conformance` there belongs to an unrelated
project, so every install line (docs, generated workflows, messages) names the distribution."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from conformance.commands.scaffold import DISTRIBUTION, INSTALL

ROOT = Path(__file__).resolve().parents[2]


def _name() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"])


def test_the_distribution_is_not_the_unrelated_conformance() -> None:
    assert _name() == DISTRIBUTION
    assert _name() != "conformance"


def test_generated_workflows_install_the_projects_own_distribution() -> None:
    assert INSTALL.startswith(f'pip install "{_name()}==')


def test_no_doc_or_message_installs_another_distribution() -> None:
    install = re.compile(r"pip install ['\"]?conformance(?:[\[=<>'\" ]|$)", re.M)
    places = [*ROOT.joinpath("docs").glob("*.md"), ROOT / "README.md", *ROOT.joinpath("src").rglob("*.py")]
    wrong = [str(p.relative_to(ROOT)) for p in places if install.search(p.read_text())]
    assert wrong == []
