"""The decode-only pattern: a runtime's reading of responses, judged apart from its requests."""

from __future__ import annotations

import dataclasses
from typing import Any

from conformance.runtime.protocol import declaration_of, decode_response


class DecodeOnly:
    """A view of `runtime` that offers `decode` alone (the recorded request stands in for its own).

    Its name says so, and its declaration (when the runtime has one) is kept."""

    def __init__(self, runtime: Any, *, suffix: str = " (decode only)") -> None:
        self._runtime = runtime
        self.name = f"{getattr(runtime, 'name', type(runtime).__name__)}{suffix}"
        declared = declaration_of(runtime)
        self.declaration = dataclasses.replace(declared, name=f"{declared.name}{suffix}")

    def decode(
        self,
        provider: str,
        status: int,
        headers: dict[str, str],
        chunks: list[bytes],
        stream: bool,
        *,
        model: str | None = None,
    ) -> dict[str, Any]:
        """The wrapped runtime's `decode`, unchanged (given `model` where it takes one)."""
        result: dict[str, Any] = decode_response(self._runtime, provider, status, headers, chunks, stream, model=model)
        return result
