"""Mutant runtimes for the fault rows: the reference runtime with one deliberate bug each about how
an answer ends on the transport (`replay.faults`)."""

from __future__ import annotations

from typing import Any

from conformance.runtime.dropped import received
from conformance.runtime.protocol import TurnRequest
from conformance.runtime.reference import ReferenceRuntime


class ReadsADropAsACleanEnd(ReferenceRuntime):
    """Takes the bytes that arrived before the connection dropped as the whole body."""

    name = "mutant-drop-as-clean-end"

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        return super().decode(provider, status, headers, received(chunks), stream)


class LetsTheDropEscape(ReferenceRuntime):
    """Reads the body without a word about the transport: the connection error escapes `decode`."""

    name = "mutant-drop-escapes"

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        whole = b"".join(chunks)  # raises where the connection dropped, as a socket read does
        return super().decode(provider, status, headers, [whole], stream)


class TakesACutStreamAsComplete(ReferenceRuntime):
    """A stream that ended without its terminal event is returned as a message with no stop reason,
    as the official OpenAI and Anthropic SDKs return it."""

    name = "mutant-cut-stream-complete"

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        out = super().decode(provider, status, headers, chunks, stream)
        partial = out.get("partial")
        if out.get("error", {}).get("kind") == "stream_interrupted" and isinstance(partial, dict):
            return {"message": {k: v for k, v in partial.items() if k != "error"}}
        return out


class GivesUpOnAReset(ReferenceRuntime):
    """Makes one attempt only: a connection reset before any byte ends the turn with its error."""

    name = "mutant-gives-up-on-reset"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        request.settings = {**request.settings, "policy": {**request.settings.get("policy", {}), "max_attempts": 1}}
        return super().turn(request)
