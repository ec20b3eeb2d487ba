"""Per-dialect codecs, registered by dialect name."""

from __future__ import annotations

from conformance.capabilities import ProviderProfile
from conformance.codecs.base import Codec, StreamAccumulator, WireRequest, decode_response, header
from conformance.codecs.builder import MessageBuilder

_CODECS: dict[str, Codec] = {}


def register_codec(codec: Codec) -> None:
    _CODECS[codec.dialect] = codec


def codec_for(profile: ProviderProfile) -> Codec:
    if not _CODECS:
        _load_builtin()
    return _CODECS[profile.dialect]


def _load_builtin() -> None:
    from conformance.codecs import anthropic, gemini, ollama, openai_chat

    for module in (openai_chat, anthropic, gemini, ollama):
        register_codec(module.CODEC)


__all__ = [
    "Codec",
    "MessageBuilder",
    "StreamAccumulator",
    "WireRequest",
    "codec_for",
    "decode_response",
    "header",
    "register_codec",
]
