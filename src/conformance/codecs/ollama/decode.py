"""A successful non-streaming Ollama `/api/chat` body (one record) → `AssistantMessage`."""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.ollama.reader import RecordReader
from conformance.exceptions import WireFormatError
from conformance.model import AssistantMessage


def decode(data: Any, profile: ProviderProfile) -> AssistantMessage:
    if not isinstance(data, dict):
        raise WireFormatError("expected an /api/chat response object", where="response body")
    reader = RecordReader(profile)
    reader.record(data, where="response body")
    return reader.message()
