"""Gemini Developer API dialect (`generateContent`, `streamGenerateContent?alt=sse`)."""

from conformance.codecs.base import Codec
from conformance.codecs.gemini.decode import decode
from conformance.codecs.gemini.encode import encode
from conformance.codecs.gemini.errors import classify, error_from_payload
from conformance.codecs.gemini.restream import restream
from conformance.codecs.gemini.stream import GeminiStream
from conformance.codecs.gemini.tables import CALLS_END_WITH
from conformance.codecs.gemini.validate import validate_request

CODEC = Codec(
    dialect="gemini",
    encode=encode,
    decode=decode,
    stream=GeminiStream,
    classify=classify,
    stream_content_types=("text/event-stream",),
    validate=validate_request,
    calls_end_plainly=CALLS_END_WITH,
    restream=restream,
)

__all__ = ["CODEC", "GeminiStream", "classify", "decode", "encode", "error_from_payload"]
