"""The OpenAI Chat Completions dialect, shared by OpenAI and every OpenAI-compatible gateway.

Gateways differ only by profile flags (`reasoning_fields`, `reasoning_details`, `think_tags`,
`output_excludes_reasoning`, `send_reasoning_back`, `tool_choice_required`, …), never by name.
"""

from __future__ import annotations

from conformance.codecs.base import Codec
from conformance.codecs.openai_chat.decode import decode
from conformance.codecs.openai_chat.encode import encode
from conformance.codecs.openai_chat.errors import classify, error_from_payload
from conformance.codecs.openai_chat.restream import restream
from conformance.codecs.openai_chat.stream import OpenAIChatStream
from conformance.codecs.openai_chat.validate import validate_request

CODEC = Codec(
    dialect="openai_chat",
    encode=encode,
    decode=decode,
    stream=OpenAIChatStream,
    classify=classify,
    stream_content_types=("text/event-stream",),
    validate=validate_request,
    restream=restream,
)

__all__ = ["CODEC", "OpenAIChatStream", "classify", "decode", "encode", "error_from_payload"]
