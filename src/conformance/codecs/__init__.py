"""Per-dialect codecs, registered by dialect name."""

from __future__ import annotations

import importlib

from conformance.capabilities import ProviderProfile
from conformance.codecs.base import Codec, StreamAccumulator, WireRequest, decode_response, header
from conformance.codecs.builder import MessageBuilder

_CODECS: dict[str, Codec] = {}


def register_codec(codec: Codec) -> None:
    _CODECS[codec.dialect] = codec


def codec_for(profile: ProviderProfile) -> Codec:
    """The codec of the profile's dialect (built-in dialects are imported on first use)."""
    codec = _CODECS.get(profile.dialect)
    if codec is None:
        module = importlib.import_module(f"conformance.codecs.{profile.dialect}")
        codec = module.CODEC
        register_codec(codec)
    return codec


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
