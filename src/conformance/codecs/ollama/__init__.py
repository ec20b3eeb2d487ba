"""Ollama native dialect (`/api/chat`, NDJSON streaming)."""

from conformance.codecs.base import Codec
from conformance.codecs.ollama.decode import decode
from conformance.codecs.ollama.encode import encode
from conformance.codecs.ollama.errors import classify, error_from_message
from conformance.codecs.ollama.restream import restream
from conformance.codecs.ollama.stream import OllamaStream
from conformance.codecs.ollama.tables import CALLS_END_WITH
from conformance.codecs.ollama.validate import validate_request

CODEC = Codec(
    dialect="ollama",
    encode=encode,
    decode=decode,
    stream=OllamaStream,
    classify=classify,
    stream_content_types=("application/x-ndjson",),
    validate=validate_request,
    calls_end_plainly=CALLS_END_WITH,
    restream=restream,
)

__all__ = ["CODEC", "OllamaStream", "classify", "decode", "encode", "error_from_message"]
