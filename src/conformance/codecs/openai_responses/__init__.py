"""The OpenAI Responses dialect (`POST /responses`), served by OpenAI, Azure OpenAI, xAI and
OpenRouter; providers differ only by profile flags, never by name."""

from __future__ import annotations

from conformance.codecs.base import Codec
from conformance.codecs.openai_responses.decode import decode
from conformance.codecs.openai_responses.encode import encode
from conformance.codecs.openai_responses.errors import classify
from conformance.codecs.openai_responses.restream import restream
from conformance.codecs.openai_responses.stream import OpenAIResponsesStream
from conformance.codecs.openai_responses.tables import DIALECT
from conformance.codecs.openai_responses.validate import validate_request

CODEC = Codec(
    dialect=DIALECT,
    encode=encode,
    decode=decode,
    stream=OpenAIResponsesStream,
    classify=classify,
    restream=restream,
    stream_content_types=("text/event-stream",),
    validate=validate_request,
    server_tools=True,
)

__all__ = ["CODEC", "OpenAIResponsesStream", "classify", "decode", "encode"]
