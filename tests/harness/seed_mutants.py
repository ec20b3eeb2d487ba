"""Mutant runtimes for the rows that judge the seeds' turn-loop behaviours: the reference runtime with
one realistic bug each, planted by swapping one of the loop's parts for the length of one call.

- `NoProxyMode`: a proxy's `Please use a valid role` 400 is returned as it is (seed 001: the
  continuation is never flattened into proxy mode);
- `NoToolTypeRetry` (from `policy_mutants`): a proxy's `tool_type` 400 is returned as it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from conformance.runtime import turn
from conformance.runtime.protocol import TurnRequest
from conformance.runtime.reference import ReferenceRuntime
from tests.harness.policy_mutants import NoToolTypeRetry


@contextmanager
def _patched(module: Any, name: str, value: Any) -> Iterator[None]:
    with mock.patch.object(module, name, value):
        yield


class NoProxyMode(ReferenceRuntime):
    """Never switches to proxy mode: a proxy's role rejection ends the turn."""

    name = "mutant-no-proxy-mode"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with _patched(turn, "needs_proxy_mode", lambda error: False):
            return super().turn(request)


__all__ = ["NoProxyMode", "NoToolTypeRetry"]
