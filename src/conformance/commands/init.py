"""`conformance init [DIR]`: scaffold a project layered over the bundled data (and CI workflows)."""

from __future__ import annotations

import argparse
import io
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "init",
        help="scaffold a project: a root layered over the bundled data, an example scenario and cassette, "
        "pytest configuration and a runtime stub",
    )
    p.add_argument("dir", nargs="?", default=".", metavar="DIR", help="where to write the project (default: .)")
    p.add_argument("--ci", choices=("github",), help="also write CI workflows (github: GitHub Actions)")
    p.add_argument("--force", action="store_true", help="overwrite files that already exist")
    p.set_defaults(func=run)


def _writable(target: Path, rel: str, *, force: bool) -> None:
    """Refuse (one `InputError` naming the path) to write `target/rel` through a symlinked directory
    or over a non-directory where a directory goes, to replace a directory, or to replace anything
    that exists — a symlink, dangling or not, included — without `force`. With `force` a symlink
    itself is replaced (the file is written beside it and renamed over it), never what it points to."""
    from conformance.exceptions import InputError

    folder = target
    for part in Path(rel).parts[:-1]:
        folder = folder / part
        if folder.is_symlink():
            raise InputError("a symlinked directory: init never writes through a symlink", where=str(folder))
        if folder.exists() and not folder.is_dir():
            raise InputError("not a directory, where init writes a directory", where=str(folder))
    path = target / rel
    if path.is_dir() and not path.is_symlink():
        raise InputError("a directory, where init writes a file", where=str(path))
    if not force and (path.exists() or path.is_symlink()):
        raise InputError("already exists; run again with --force to overwrite it", where=str(path))


def run(args: argparse.Namespace) -> int:
    from conformance.commands.project import PytestConfig, join, pytest_config, settings_lines
    from conformance.commands.scaffold import GITHUB, PROJECT, ROOT, RUNTIME
    from conformance.data import bundled_root
    from conformance.fileio import atomic_write
    from conformance.harness.sync import sync_requests
    from conformance.scenarios import stack_roots

    target = Path(args.dir)
    files = {**PROJECT, **(GITHUB if args.ci == "github" else {})}
    existing = pytest_config(target)  # the project's own pytest configuration: joined, never shadowed
    pyproject = target / "pyproject.toml"
    if existing is not None or pyproject.is_file():
        del files["pytest.ini"]
    for rel in files:  # every path checked before anything is written
        _writable(target, rel, force=args.force)
    for rel, text in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text)
        print(f"wrote {path}")
    if existing is not None:
        where = f"{existing.path} [{existing.section}]"
        if added := join(existing, ROOT, RUNTIME):
            print(f"added to {where}: " + "; ".join(added))
        else:
            print(
                f"{where} already configures conformance, or has no plain [{existing.section}] line; it needs: "
                + "; ".join(settings_lines(existing, ROOT, RUNTIME))
            )
    elif pyproject.is_file():  # a project without pytest configuration: a table of its own in pyproject.toml
        text = pyproject.read_text(encoding="utf-8")
        lines = settings_lines(PytestConfig(pyproject, "tool.pytest.ini_options"), ROOT, RUNTIME)
        table = "\n[tool.pytest.ini_options]\n" + "".join(f"{line}\n" for line in lines)
        atomic_write(pyproject, text + ("" if text.endswith("\n") or not text else "\n") + table)
        print(f"added to {pyproject}: [tool.pytest.ini_options] " + "; ".join(lines))
    root = (target / ROOT).resolve()
    stack_roots([root], bundled_root())
    sync_requests(root, providers=["anthropic"], only=None, write=True, out=io.StringIO())
    own = "pytest.ini" not in files
    print(f"next: cd {target} && pytest -m provider{f' {ROOT}/scenarios' if own else ''}   (or: conformance run)")
    return 0
