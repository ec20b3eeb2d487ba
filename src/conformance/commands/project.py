"""A project's own configuration of conformance, read where pytest reads its own.

`conformance init` adds its settings to the project's existing pytest configuration (the first of
pytest.ini, .pytest.ini, pyproject.toml's `[tool.pytest.ini_options]`, tox.ini's `[pytest]`,
setup.cfg's `[tool:pytest]`, as pytest picks it) instead of writing a pytest.ini that would shadow
it; and the command line reads the same settings (`[tool.conformance]` `root`/`runtime` in
pyproject.toml, else the pytest keys `conformance_root`/`conformance_runtime`) so a bare
`conformance run` in the project runs the project's roots with its runtime.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INI_FILES: tuple[tuple[str, str], ...] = (
    ("pytest.ini", "pytest"),
    (".pytest.ini", "pytest"),
    ("pyproject.toml", "tool.pytest.ini_options"),
    ("tox.ini", "pytest"),
    ("setup.cfg", "tool:pytest"),
)
"""pytest's configuration files in the order it picks the first that holds its section."""


@dataclass(frozen=True)
class PytestConfig:
    path: Path
    section: str

    @property
    def toml(self) -> bool:
        return self.path.suffix == ".toml"


def _read_toml(path: Path) -> dict[str, Any]:
    from conformance.exceptions import InputError

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", where=str(path)) from None


def _ini_section(path: Path, section: str) -> dict[str, str] | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error:
        return None
    return dict(parser[section]) if parser.has_section(section) else None


def pytest_config(folder: Path) -> PytestConfig | None:
    """The pytest configuration pytest would read in `folder`, if any."""
    for name, section in INI_FILES:
        path = folder / name
        if not path.is_file():
            continue
        if name.endswith(".toml"):
            if "ini_options" in _read_toml(path).get("tool", {}).get("pytest", {}):
                return PytestConfig(path, section)
        elif name.endswith("pytest.ini") or _ini_section(path, section) is not None:
            return PytestConfig(path, section)
    return None


def settings_lines(config: PytestConfig | None, root: str, runtime: str) -> list[str]:
    """The lines that configure conformance in `config`'s format (TOML or ini)."""
    if config is not None and config.toml:
        return [f'conformance_root = ["{root}"]', f'conformance_runtime = "{runtime}"']
    return [f"conformance_root = {root}", f"conformance_runtime = {runtime}"]


def join(config: PytestConfig, root: str, runtime: str) -> list[str]:
    """Add the conformance keys to `config`'s section, right under its header, keeping every other
    line as it is; the lines added (none when the keys are there already)."""
    from conformance.fileio import atomic_write

    text = config.path.read_text(encoding="utf-8")
    present = (
        _read_toml(config.path)["tool"]["pytest"]["ini_options"]
        if config.toml
        else _ini_section(config.path, config.section) or {}
    )
    lines = [line for line in settings_lines(config, root, runtime) if line.split("=", 1)[0].strip() not in present]
    if not lines:
        return []
    header = re.compile(rf"^\[{re.escape(config.section)}\][ \t]*(#.*)?$", re.MULTILINE)
    found = header.search(text)
    if found is None:  # a section pytest reads but not as a plain header line: say what to add
        return []
    at = text.find("\n", found.end())
    at = len(text) if at < 0 else at + 1
    prefix = text[:at] if text[:at].endswith("\n") else text[:at] + "\n"
    atomic_write(config.path, prefix + "".join(f"{line}\n" for line in lines) + text[at:])
    return lines


@dataclass(frozen=True)
class ProjectSettings:
    roots: tuple[Path, ...] = ()
    runtime: str | None = None


def project_settings(folder: Path | None = None) -> ProjectSettings:
    """What the project in `folder` (default: the working directory) configures for conformance:
    `[tool.conformance]` in pyproject.toml, else the pytest configuration's conformance keys."""
    folder = folder or Path.cwd()
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        own = _read_toml(pyproject).get("tool", {}).get("conformance", {})
        if own:
            root = own.get("root")
            roots = [root] if isinstance(root, str) else list(root or [])
            return ProjectSettings(tuple(folder / str(r) for r in roots), own.get("runtime"))
    config = pytest_config(folder)
    if config is None:
        return ProjectSettings()
    if config.toml:
        table = _read_toml(config.path)["tool"]["pytest"]["ini_options"]
        root = table.get("conformance_root", [])
        roots = [root] if isinstance(root, str) else list(root)
        runtime = table.get("conformance_runtime")
    else:
        section = _ini_section(config.path, config.section) or {}
        roots = section.get("conformance_root", "").split()
        runtime = section.get("conformance_runtime")
    base = config.path.parent
    return ProjectSettings(tuple(base / str(r) for r in roots if str(r).strip()), str(runtime) if runtime else None)
