"""Unpaired UTF-16 surrogates: text that no provider accepts in a request.

A JSON string may escape half of a UTF-16 pair (`"\\ud83d"` alone) when the text was cut between
the two halves of an emoji, or when a tool decoded bytes with `surrogateescape`. Such a string is
not Unicode text: providers reject the whole request ("no low surrogate in string") and a UTF-8
encoder refuses it. Two halves that do form a pair are joined into their character; a half
without its partner becomes U+FFFD, the replacement character, so the text keeps a visible mark
of the loss. The same replacement is applied to every string of a message (text, thinking, tool
arguments, ids), so a call and its result still match.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic_core import PydanticSerializationError

from conformance.model import Message, parse_message
from conformance.runtime.repair.base import Action, Loss, RepairContext

_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_LONE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def _join(match: re.Match[str]) -> str:
    high, low = (ord(c) for c in match.group(0))
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def clean_text(text: str) -> tuple[str, int]:
    """`text` with surrogate pairs joined and lone halves replaced; how many were replaced."""
    if not _LONE.search(text):
        return text, 0
    joined = _PAIR.sub(_join, text)
    return _LONE.subn(REPLACEMENT, joined)


_BACKSLASHES = re.compile(r"\\+")
"""A maximal run of backslashes: matched once from its first character, so the scan is linear
(a pattern such as `(\\+)u` retried from every backslash of a long run is quadratic)."""
_HEX = frozenset("0123456789abcdefABCDEF")


def _escapes(json_text: str) -> list[tuple[int, int, int]]:
    """Every `\\uXXXX` escape as (start of its backslash, end, code): a `u` and four hex digits
    after an odd run of backslashes (an even run is escaped backslashes)."""
    out: list[tuple[int, int, int]] = []
    for run in _BACKSLASHES.finditer(json_text):
        end = run.end()
        if (end - run.start()) % 2 == 1 and json_text[end : end + 1] == "u":
            digits = json_text[end + 1 : end + 5]
            if len(digits) == 4 and all(c in _HEX for c in digits):
                out.append((end - 1, end + 5, int(digits, 16)))
    return out


def mend_surrogate_escapes(json_text: str) -> tuple[str, int]:
    """`json_text` with every `\\uXXXX` escape of an unpaired surrogate replaced by `\\ufffd`
    (an escape is a `u` after an odd run of backslashes; a high escape directly followed by a low
    one is a pair and stays); how many were replaced. Linear in the text."""
    if "\\u" not in json_text:
        return json_text, 0
    escapes = _escapes(json_text)
    out: list[str] = []
    pos = replaced = i = 0
    while i < len(escapes):
        start, end, code = escapes[i]
        if 0xD800 <= code <= 0xDBFF and i + 1 < len(escapes):
            n_start, _, n_code = escapes[i + 1]
            if n_start == end and 0xDC00 <= n_code <= 0xDFFF:  # a low escape right after: a pair
                i += 2
                continue
        if 0xD800 <= code <= 0xDFFF:
            out.append(json_text[pos:start] + "\\ufffd")
            pos = end
            replaced += 1
        i += 1
    if not replaced:
        return json_text, 0
    out.append(json_text[pos:])
    return "".join(out), replaced


def clean_value(value: Any) -> tuple[Any, int]:
    """`clean_text` over every string (keys included) of a JSON value."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        items = [clean_value(v) for v in value]
        return [v for v, _ in items], sum(n for _, n in items)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        total = 0
        for key, item in value.items():
            new_key, n_key = clean_text(key) if isinstance(key, str) else (key, 0)
            new_item, n_item = clean_value(item)
            out[new_key] = new_item
            total += n_key + n_item
        return out, total
    return value, 0


def _utf8_clean(message: Message) -> bool:
    """No surrogate code point anywhere in the message: its JSON (keys included) encodes as UTF-8.
    The common case, decided by pydantic-core's serializer instead of a walk in Python."""
    try:
        message.model_dump_json()
    except PydanticSerializationError:
        return False
    return True


def replace_lone_surrogates(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    del ctx
    out: list[Message] = []
    actions: list[Action] = []
    for i, message in enumerate(messages):
        if _utf8_clean(message):
            out.append(message)
            continue
        data = message.model_dump(mode="python", exclude_none=True)
        cleaned, count = clean_value(data)
        if count:
            detail = f"replaced {count} unpaired UTF-16 surrogate(s) with U+FFFD"
            actions.append(Loss("replace_lone_surrogates", i, detail))
        elif cleaned != data:
            actions.append(Action("replace_lone_surrogates", i, "joined UTF-16 surrogate pairs into their characters"))
        if cleaned != data:
            message = parse_message(cleaned)
        out.append(message)
    return out, actions
