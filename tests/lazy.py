"""Libraries the tests drive, asked for without importing them at collection.

`require` skips the calling test module when a library is not installed, as `pytest.importorskip`
does, but finds it without importing it; `lazy` gives a module that is imported on the first read of
one of its public attributes. A test process that runs none of a module's tests then never imports the heavy
library behind it (litellm, pydantic-ai, the official SDKs, playwright each take seconds)."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import pytest


def installed(name: str) -> bool:
    """Whether `name` (dotted) can be imported, found without importing it (its parent packages are)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent package is absent
        return False


def require(*names: str, reason: str | None = None) -> None:
    """Skip the calling module at collection when one of `names` is not installed."""
    for name in names:
        if not installed(name):
            pytest.skip(reason or f"could not import {name!r}: not installed", allow_module_level=True)


class Lazy:
    """A module imported on the first read of one of its public attributes. Private and dunder names
    are never forwarded: pytest reads those (`__test__`, `__class__`, fixture markers) of every name a
    test module holds while collecting it, which must not import the library."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


def lazy(name: str) -> Any:
    """`name` as a `Lazy` module (the real one when it is already imported)."""
    return sys.modules.get(name) or Lazy(name)
