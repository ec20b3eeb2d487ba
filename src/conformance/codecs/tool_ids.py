"""Tool-call ids the target accepts (`profile.tool_id_pattern`; Mistral: exactly 9 alphanumerics).

Ids that already match are kept. Any other id gets a deterministic replacement (a sanitized form
when it fits, else a hash of the original), and the same mapping is applied to the calls and to
the tool results that answer them, so a history from any provider can be replayed. The
openai_chat encoder applies the map; the runtime's `rewrite_tool_ids` repair rule uses the same
one, so an id it has already rewritten matches the pattern and passes through unchanged.
"""

from __future__ import annotations

import hashlib
import re

from conformance.capabilities import ProviderProfile
from conformance.model import AssistantMessage, Message, ToolCallBlock, ToolResultMessage

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_DEFAULT_HASH_LENGTH = 24
_SALTS = 4


def _hash_id(original: str, length: int, salt: int) -> str:
    digest = int.from_bytes(hashlib.sha256(f"{original}\x00{salt}".encode()).digest(), "big")
    chars = []
    for _ in range(length):
        digest, rest = divmod(digest, len(_ALPHABET))
        chars.append(_ALPHABET[rest])
    return "".join(chars)


def target_id(original: str, pattern: str, length: int | None, taken: set[str]) -> str | None:
    """A deterministic id matching `pattern` for `original`, not in `taken`; None if none fits."""
    candidates = [] if length is not None else [re.sub(r"[^A-Za-z0-9_-]", "_", original)]
    for salt in range(_SALTS):
        hashed = _hash_id(original, length or _DEFAULT_HASH_LENGTH, salt)
        candidates += [hashed] if length is not None else [f"call_{hashed}", hashed]
    for candidate in candidates:
        if re.fullmatch(pattern, candidate) and candidate not in taken:
            return candidate
    return None


def ordered_ids(messages: list[Message]) -> list[str]:
    """Every tool-call and tool-result id, first occurrence first."""
    ordered: list[str] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            ordered += [b.id for b in message.content if isinstance(b, ToolCallBlock)]
        elif isinstance(message, ToolResultMessage):
            ordered.append(message.tool_call_id)
    return list(dict.fromkeys(ordered))


def tool_id_map(messages: list[Message], profile: ProviderProfile) -> dict[str, str]:
    """Original id → id to send, for every id (of a call or a result) that breaks the pattern.

    Empty when the profile has no pattern. An id for which no replacement fits is left out (sent
    as it is; the provider's answer then says why)."""
    pattern = profile.tool_id_pattern
    if pattern is None:
        return {}
    return id_map(messages, pattern, profile.tool_id_length)


def id_map(messages: list[Message], pattern: str, length: int | None) -> dict[str, str]:
    """`tool_id_map` for an explicit pattern and length."""
    ordered = ordered_ids(messages)
    taken = {x for x in ordered if re.fullmatch(pattern, x)}
    mapping: dict[str, str] = {}
    for original in ordered:
        if original in taken:
            continue
        new_id = target_id(original, pattern, length, taken)
        if new_id is not None:
            taken.add(new_id)
            mapping[original] = new_id
    return mapping
