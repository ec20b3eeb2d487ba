"""The Anthropic Messages dialect (`POST /v1/messages`, JSON and SSE)."""

from __future__ import annotations

from conformance.codecs.anthropic.decode import decode
from conformance.codecs.anthropic.encode import encode
from conformance.codecs.anthropic.errors import classify, error_from_payload
from conformance.codecs.anthropic.restream import restream
from conformance.codecs.anthropic.stream import AnthropicStream
from conformance.codecs.anthropic.validate import validate_request
from conformance.codecs.anthropic.vocabulary import DIALECT
from conformance.codecs.base import Codec

CODEC = Codec(
    dialect=DIALECT,
    encode=encode,
    decode=decode,
    stream=AnthropicStream,
    classify=classify,
    stream_content_types=("text/event-stream",),
    validate=validate_request,
    restream=restream,
    server_tools=True,
)

__all__ = ["CODEC", "AnthropicStream", "classify", "decode", "encode", "error_from_payload"]
