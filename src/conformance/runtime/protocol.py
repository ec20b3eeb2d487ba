"""The runtime protocol: what the harness asks of a runtime under test.

JSON in, JSON out (the shapes of docs/normalized-form.md), so an adapter around any Python
runtime is a few lines: see examples/. The reference runtime implements it with this package's
codecs. `conformance run --runtime package.module:factory` runs the matrix against another one.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Runtime(Protocol):
    name: str
    """Shown in the report as the runtime under test."""

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        """CONVERSATION.json → the wire request body this runtime would send to `provider`."""
        ...

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        """One HTTP response (body as received, possibly in several chunks) → an Outcome:
        `{"message": …}` or `{"error": …, "partial": …|null}`."""
        ...

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A transcript → `{"messages": […], "actions": […], "warnings": […]}` for `provider`.
        `options`: `foreign_thinking` (`drop` | `text`), `gemini_proxy` (bool)."""
        ...
