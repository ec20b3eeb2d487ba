"""A disk cache of the example adapters' count runs (scripts/runtime_counts.py, scripts/typescript_counts.py).

Off unless a caller names its folder (`use`): the tests name one in pytest's cache directory, so the
default step's runs are read again by the full step and by the next local run; the scripts run
alone are always fresh (`--write` rewrites docs/runtimes.md from fresh runs only).

A stored run is keyed by a digest of everything that can change a verdict: the data (scenarios/,
cassettes/, corpus/), the code (the imported `conformance` package, examples/ — its
`node_modules` by the lock files npm wrote —, scripts/, pyproject.toml), every installed
distribution's version, the Python (and, for the TypeScript runs, Node) version and the
`CONFORMANCE_*` / `HYPOTHESIS_*` environment. A change of any of them is a new digest: the runs
are made again and the stored ones of other digests are removed. Only the digest and the runs'
results (from the bundled, scrubbed recordings) are written: no value of the environment.

    CONFORMANCE_COUNT_CACHE=0 pytest …   # every count run fresh
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENV = "CONFORMANCE_COUNT_CACHE"
"""`0` (or `off`, `no`, `false`): no run is read from or written to the cache."""
DATA = ("scenarios", "cassettes", "corpus")
CODE = ("examples", "scripts")
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache"})
NPM_LOCKS = ("examples/typescript/package-lock.json", "examples/typescript/node_modules/.package-lock.json")
"""The TypeScript libraries' versions: the lock file, and the one npm writes of what it installed."""
ENV_PREFIXES = ("CONFORMANCE_", "HYPOTHESIS_")

_folder: Path | None = None


def use(folder: Path | None) -> None:
    """Store runs under `folder` from now on (None: every run fresh)."""
    global _folder
    _folder = folder


def enabled() -> bool:
    return _folder is not None and os.environ.get(ENV, "").strip().lower() not in ("0", "off", "no", "false")


def _files(top: Path) -> Iterator[Path]:
    """Every file under `top` (links as links), in a fixed order, build and tool caches left out."""
    for here, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(files):
            if not name.endswith(".pyc"):
                yield Path(here) / name
        for name in dirs:  # os.walk lists a link to a folder as a folder and does not enter it
            if (Path(here) / name).is_symlink():
                yield Path(here) / name


def _hash_tree(digest: Any, top: Path, label: str) -> None:
    for path in _files(top):
        digest.update(f"\0{label}/{path.relative_to(top).as_posix()}\0".encode())
        if path.is_symlink():
            digest.update(b"link:" + os.readlink(path).encode())
        else:
            digest.update(hashlib.sha256(path.read_bytes()).digest())


@cache
def installed_versions() -> str:
    """Every installed distribution's `name==version`, one a line, sorted (read once per process)."""
    return "\n".join(sorted({f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions()}))


@cache
def inputs_digest() -> str:
    """The digest of every input of a Python count run (computed once per process)."""
    import conformance

    digest = hashlib.sha256()
    _hash_tree(digest, Path(conformance.__file__).resolve().parent, "conformance")
    for name in (*DATA, *CODE):
        _hash_tree(digest, ROOT / name, name)
    for name in ("pyproject.toml", *NPM_LOCKS):
        path = ROOT / name
        digest.update(f"\0{name}\0".encode() + (path.read_bytes() if path.is_file() else b"absent"))
    digest.update(installed_versions().encode())
    digest.update(f"{sys.version}|{platform.platform()}|{sys.executable}".encode())
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIXES) and k != ENV)
    digest.update(json.dumps(env).encode())
    return digest.hexdigest()


@cache
def node_version() -> str:
    """`node --version` (what runs the TypeScript adapters), or `absent`."""
    node = shutil.which("node")
    if node is None:
        return "absent"
    done = subprocess.run([node, "--version"], capture_output=True, text=True, check=False)
    return f"{node} {done.stdout.strip()}"


def stored(name: str, compute: Callable[[], Any], *, node: bool = False) -> Any:
    """The JSON value `compute()` gives for the run `name`, read from the cache when the same inputs
    gave it before, else computed (and stored when the cache is on). `node`: the run is a Node program's."""
    if not enabled():
        return compute()
    assert _folder is not None
    name = f"{name} | {node_version()}" if node else name
    folder = _folder / inputs_digest()[:32]
    path = folder / (hashlib.sha256(name.encode()).hexdigest()[:32] + ".json")
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        if entry.get("name") == name:
            return entry["value"]
    except (OSError, ValueError, KeyError, AttributeError):
        pass
    value = compute()
    _store(folder, path, {"name": name, "value": value})
    return value


def _store(folder: Path, path: Path, entry: dict[str, Any]) -> None:
    """Write `entry` atomically (xdist workers may store the same run), and drop other digests' runs."""
    try:
        for old in _folder.iterdir() if _folder is not None and _folder.is_dir() else ():
            if old.is_dir() and old.name != folder.name:
                shutil.rmtree(old, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entry, f)
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache is no cache: the run stands
