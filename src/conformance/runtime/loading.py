"""Load the runtime under test from `package.module:factory` (the reference runtime by default)."""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
from typing import Any

from conformance.exceptions import InputError
from conformance.runtime.protocol import CAPABILITIES, capabilities_of, missing_capabilities


def load_runtime(
    spec: str | None,
    *,
    where: str = "--runtime",
    needs: tuple[str, ...] = (),
    command: str | None = None,
    timeout: float | None = None,
    start_timeout: float | None = None,
    max_answer: int | None = None,
) -> tuple[Any, str]:
    """`package.module:factory` → (a runtime instance, its name); None → the reference runtime.

    `factory` is called when it is callable (a class or a function), else used as the runtime. It
    must implement at least one capability, and every capability in `needs`. `command` (a program
    speaking the JSON-lines protocol, `runtime.process`) is used instead of `spec` when given; its
    name is the handshake's name and version; `timeout` bounds one call, `start_timeout` the start-up
    and handshake, `max_answer` the longest line it may print (its stdout during one call: twice that;
    the defaults of `runtime.process` and `runtime.program` when None)."""
    if command:
        from conformance.runtime.process import DEFAULT_START_TIMEOUT_S, DEFAULT_TIMEOUT_S, ProcessRuntime
        from conformance.runtime.program import DEFAULT_LIMITS

        limits = DEFAULT_LIMITS
        if max_answer:
            limits = dataclasses.replace(limits, line_bytes=max_answer, call_bytes=2 * max_answer)

        if spec:
            raise InputError("give --runtime or --runtime-cmd, not both", where=where)
        proc = ProcessRuntime(
            command,
            timeout=timeout or DEFAULT_TIMEOUT_S,
            start_timeout=start_timeout or DEFAULT_START_TIMEOUT_S,
            limits=limits,
        )
        label = f"{proc.name} {proc.version}" if proc.version else proc.name
        missing = missing_capabilities(proc, needs)
        if missing:
            proc.close()
            raise InputError(f"runtime {label} does not offer {', '.join(f'`{c}`' for c in missing)}", where=where)
        return proc, label
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
    except Exception as exc:  # an adapter failing on a library release it does not know: one line, no traceback
        raise InputError(f"cannot import {module_name!r}: {type(exc).__name__}: {exc}", where=where) from None
    factory = getattr(module, attr, None)
    if factory is None:
        raise InputError(f"{module_name} has no attribute {attr!r}", where=where)
    try:
        runtime = factory() if callable(factory) else factory
    except Exception as exc:  # the user's factory failed: say so in one line
        raise InputError(f"{spec} raised {type(exc).__name__}: {exc}", where=where) from None
    name = str(getattr(runtime, "name", "") or spec)
    if not capabilities_of(runtime):
        methods = ", ".join(sorted(set(CAPABILITIES.values())))
        raise InputError(f"{spec} implements none of the runtime protocol's methods ({methods})", where=where)
    missing = missing_capabilities(runtime, needs)
    if missing:
        raise InputError(f"runtime {name} does not implement {', '.join(f'`{c}`' for c in missing)}", where=where)
    return runtime, name
