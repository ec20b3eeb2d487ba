"""The bundled scenarios and cassettes, shipped in the wheel: the default project root.

In a checkout, `scenarios` and `cassettes` here are links to the repository's own folders; a built
wheel holds copies. `bundled_root()` is where `conformance run` looks when the current folder has
no `scenarios/` of its own.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def bundled_root() -> Path:
    """The folder holding the bundled `scenarios/` and `cassettes/`."""
    return HERE


def default_root(given: str | None) -> Path:
    """`given` when set; else the current folder when it has `scenarios/`; else the bundled data."""
    if given:
        return Path(given).resolve()
    here = Path.cwd()
    return here.resolve() if (here / "scenarios").is_dir() else bundled_root()
