"""`--root` as every command takes it: repeatable, layered as `conformance run` layers it.

Roots stack lowest first; a root whose `conformance.yaml` says `bundled: true` stacks over the
bundled data. Commands read every layer's scenarios and cassettes, and write (cassettes, accepted
outcomes, synced requests) into the top root alone, never into the bundled package data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT_HELP = (
    "project root holding scenarios/ and cassettes/ (default: the project's conformance_root in pyproject.toml "
    "or its pytest configuration, else . with a scenarios/, else the bundled ones); "
    "repeatable, each layered over the ones before it (and over the bundled data when its conformance.yaml "
    "says bundled: true)"
)


def add_root_option(parser: Any, *, writes: str | None = None) -> None:
    """`--root`, repeatable; `writes`: what the command writes, into the top root only."""
    extra = f"; {writes} go into the last root only, never into the bundled data" if writes else ""
    parser.add_argument("--root", action="append", default=None, metavar="DIR", help=ROOT_HELP + extra)


@dataclass(frozen=True)
class Roots:
    """The top root and the layers under it (bottom first, the top last; empty for the top alone)."""

    top: Path
    layers: tuple[Path, ...]

    def writable(self) -> Path:
        """The top root, where a command writes: an error when it is the bundled data."""
        from conformance.data import bundled_root
        from conformance.scenarios.layers import writable_root

        return writable_root(self.top, bundled_root())


def resolve_roots(given: list[str] | None) -> Roots:
    """The roots `--root` names (none: the project's configured roots, else `.` with a scenarios/,
    else the bundled data), stacked."""
    from conformance.commands.project import project_settings
    from conformance.data import bundled_root, default_root
    from conformance.scenarios import stack_roots

    configured = [str(r) for r in project_settings().roots] if not given else []
    given = given or configured or None
    roots = [default_root(g) for g in given] if given else [default_root(None)]
    layers = stack_roots(roots, bundled_root())
    return Roots(roots[-1], layers if len(layers) > 1 else ())
