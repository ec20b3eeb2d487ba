"""The library releases an adapter covers: any other ends in one line naming both, never a traceback."""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from types import ModuleType


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version)[:3])


def require_version(
    dist: str, module: str, *, minimum: tuple[int, ...], below: tuple[int, ...] | None = None
) -> tuple[ModuleType, str]:
    """(the imported `module`, the installed version of `dist`), or ImportError (one line: the
    loader prints it as `cannot import …`) when `dist` is absent or outside [minimum, below)."""
    try:
        version = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        raise ImportError(f"{dist} is not installed: pip install -c examples/constraints.txt {dist}") from None
    covered = ".".join(map(str, minimum)) + (f" up to {'.'.join(map(str, below))}" if below else " and later")
    if _release(version) < minimum or (below is not None and _release(version) >= below):
        raise ImportError(f"{dist} {version} is not a release this adapter covers ({covered})")
    try:
        return importlib.import_module(module), version
    except ImportError as exc:
        raise ImportError(f"{dist} {version}: {exc}") from None
