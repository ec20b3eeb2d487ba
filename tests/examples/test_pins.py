"""The libraries under test run at the versions docs/runtimes.md was counted with (examples/constraints.txt)."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

CONSTRAINTS = Path(__file__).resolve().parents[2] / "examples" / "constraints.txt"


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.strip()] = version.strip()
    return pins


@pytest.mark.parametrize(("name", "version"), sorted(_pins().items()))
def test_installed_version_is_the_pinned_one(name: str, version: str) -> None:
    try:
        installed = metadata.version(name)
    except metadata.PackageNotFoundError:
        pytest.skip(f"{name} is not installed: pip install -e '.[examples]' -c examples/constraints.txt")
    assert installed == version, (
        f"{name} {installed} is installed, docs/runtimes.md was counted with {version}: "
        "pip install -e '.[examples]' -c examples/constraints.txt"
    )


def test_the_examples_extra_pins_what_the_constraints_pin() -> None:
    import tomllib

    project = tomllib.loads((CONSTRAINTS.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extra = project["optional-dependencies"]["examples"]
    pins = _pins()
    for requirement in extra:
        name = requirement.split("[")[0].split("=")[0].strip()
        assert requirement.endswith(f"=={pins[name]}"), f"{requirement} differs from examples/constraints.txt"
