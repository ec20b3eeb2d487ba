"""Load the runtime under test from `package.module:factory` (the reference runtime by default)."""

from __future__ import annotations

import importlib
import os
import sys

from conformance.exceptions import InputError
from conformance.runtime.protocol import Runtime


def load_runtime(spec: str | None, *, where: str = "--runtime") -> tuple[Runtime, str]:
    """`package.module:factory` → (a runtime instance, its name); None → the reference runtime.

    `factory` is called when it is callable (a class or a function), else used as the runtime."""
    if not spec:
        from conformance.runtime.reference import ReferenceRuntime

        return ReferenceRuntime(), "reference"
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise InputError("expected package.module:factory", where=where)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # a runtime module beside the project, as `python -m` would find it
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"cannot import {module_name!r}: {exc}", where=where) from None
    factory = getattr(module, attr, None)
    if factory is None:
        raise InputError(f"{module_name} has no attribute {attr!r}", where=where)
    try:
        runtime = factory() if callable(factory) else factory
    except Exception as exc:  # the user's factory failed: say so in one line
        raise InputError(f"{spec} raised {type(exc).__name__}: {exc}", where=where) from None
    if not isinstance(runtime, Runtime):
        raise InputError(f"{spec} does not implement the runtime protocol (name, encode, decode, repair)", where=where)
    return runtime, str(getattr(runtime, "name", "") or spec)
