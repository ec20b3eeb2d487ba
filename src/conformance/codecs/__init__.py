"""Per-dialect codecs, registered by dialect name."""

from __future__ import annotations

import importlib
from typing import get_args

from conformance.capabilities import BuiltinDialect, ProviderProfile
from conformance.codecs.base import Codec, StreamAccumulator, WireRequest, decode_response, header
from conformance.codecs.builder import MessageBuilder
from conformance.exceptions import InputError

_CODECS: dict[str, Codec] = {}


def register_codec(codec: Codec) -> None:
    """Make a codec (a new wire dialect, or a replacement) available to profiles of its `dialect`."""
    _CODECS[codec.dialect] = codec


def codec_for(profile: ProviderProfile) -> Codec:
    """The codec of the profile's dialect (built-in dialects are imported on first use)."""
    codec = _CODECS.get(profile.dialect)
    if codec is None:
        if profile.dialect not in get_args(BuiltinDialect):
            known = sorted({*get_args(BuiltinDialect), *_CODECS})
            raise InputError(
                f"no codec for dialect {profile.dialect!r} (known: {', '.join(known)}); see register_codec",
                where=f"provider {profile.name}",
            )
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
