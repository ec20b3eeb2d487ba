"""A successful non-streaming Gemini body → `AssistantMessage`.

The body is one `GenerateContentResponse`, or the JSON array of chunks that
`streamGenerateContent` returns without `alt=sse`; both go through the stream's reader.
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.gemini.reader import ResponseReader
from conformance.exceptions import WireFormatError
from conformance.model import AssistantMessage


def decode(data: Any, profile: ProviderProfile) -> AssistantMessage:
    reader = ResponseReader(profile)
    chunks = data if isinstance(data, list) else [data]
    if not chunks or not all(isinstance(c, dict) for c in chunks):
        raise WireFormatError("expected a GenerateContentResponse object or an array of them", where="response body")
    for chunk in chunks:
        reader.response(chunk)
    return reader.message()
