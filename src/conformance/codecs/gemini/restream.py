"""A Gemini `generateContent` answer as the stream `streamGenerateContent?alt=sse` gives.

https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent: the stream is a
series of `GenerateContentResponse` objects as server-sent events, each holding a part of the
answer; one event holding the whole answer (its candidates, finish reason and usage) is such a
series of length one.
"""

from __future__ import annotations

from typing import Any

from conformance.codecs.restream import sse


def restream(data: Any, request: Any) -> bytes:
    """The SSE body of the same answer (`request`: the body that was sent, unused: Gemini asks for a
    stream by its address, not its body)."""
    return sse([(None, data)])


__all__ = ["restream"]
