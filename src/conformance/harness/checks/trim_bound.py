"""What a `trim` row holds a runtime to when the seed gives a bound, not a formula.

Seed 001 says older turns are trimmed progressively, to caps derived from `max_history_tokens` and
the history's density, the recent user-turn window kept whole and no turn of an active chain dropped;
it gives no cap formula. A row's `expected.bound` says what any such trimming must satisfy, and the
trimmed history is read against the original:

- `max_tokens`: the trimmed history fits the budget, by the estimate the context rows use
  (ceil(characters of the compact, key-sorted JSON of the canonical messages / 4));
- `unchanged`: these messages (by index) are sent exactly as they were (the system message, the
  recent window);
- every message is kept (none dropped, none added, roles in order), and each text is either as it
  was or cut: a proper prefix of the original followed by at most `marker_chars` characters saying
  what was cut (the seed's `… [truncated N chars]`, or any other wording);
- `cut`: these messages must be cut (keeping them whole would not fit, by the row's arithmetic);
- `progressive`: pairs `[older, newer]`: the older keeps no more of its text than the newer.
"""

from __future__ import annotations

import json
import math
from typing import Any

MARKER_CHARS = 64
"""The longest note a cut text may end with (`… [truncated 1234567 chars]` is 27)."""


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    text = json.dumps({"messages": messages, "tools": []}, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return math.ceil(len(text) / 4)


def _texts(message: dict[str, Any]) -> list[str]:
    return [b.get("text", "") for b in message.get("content", []) if isinstance(b, dict) and b.get("type") == "text"]


def _kept(original: str, sent: str, marker_chars: int) -> int | None:
    """How much of `original` a sent text keeps: all of it, or a proper prefix then a short note; None otherwise."""
    if sent == original:
        return len(original)
    n = 0
    while n < min(len(original), len(sent)) and original[n] == sent[n]:
        n += 1
    if n == 0 or n >= len(original) or len(sent) - n > marker_chars or len(sent) >= len(original):
        return None
    return n


def bound_problems(original: list[dict[str, Any]], sent: list[dict[str, Any]], bound: dict[str, Any]) -> list[str]:
    """What the trimmed history `sent` breaks of `bound` (empty: within it)."""
    problems: list[str] = []
    budget = bound.get("max_tokens")
    if budget is not None and (tokens := estimate_tokens(sent)) > int(budget):
        problems.append(f"the trimmed history is about {tokens} tokens, over max_history_tokens {budget}")
    if [m.get("role") for m in sent] != [m.get("role") for m in original]:
        problems.append(f"messages dropped or added: roles {[m.get('role') for m in sent]}")
        return problems
    marker = int(bound.get("marker_chars", MARKER_CHARS))
    kept: dict[int, int] = {}
    for i, (before, after) in enumerate(zip(original, sent, strict=True)):
        if i in bound.get("unchanged", []):
            if after != before:
                problems.append(f"messages[{i}] must be sent as it was")
            continue
        olds, news = _texts(before), _texts(after)
        if len(olds) != len(news) or {k: v for k, v in after.items() if k != "content"} != {
            k: v for k, v in before.items() if k != "content"
        }:
            problems.append(f"messages[{i}] is not the original message with its texts cut")
            continue
        lengths = [_kept(o, s, marker) for o, s in zip(olds, news, strict=True)]
        if None in lengths:
            problems.append(f"messages[{i}]: a text is neither whole nor a prefix of the original and a short note")
            continue
        kept[i] = sum(n for n in lengths if n is not None)
        if i in bound.get("cut", []) and kept[i] == sum(len(o) for o in olds):
            problems.append(f"messages[{i}] must be cut to fit the budget")
    for older, newer in bound.get("progressive", []):
        if older in kept and newer in kept and kept[older] > kept[newer]:
            more = f"more than the newer messages[{newer}] ({kept[newer]})"
            problems.append(f"messages[{older}] keeps {kept[older]} characters, {more}")
    return problems


__all__ = ["MARKER_CHARS", "bound_problems", "estimate_tokens"]
