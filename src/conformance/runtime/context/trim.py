"""History trimming: keep a long conversation under `max_history_tokens` before it is sent.

The history is cut into *user turns* (a user message and everything up to the next one), so a
tool call and its result always sit in the same turn and are kept or dropped together.

1. Leading system messages are kept as they are.
2. The most recent `keep_recent_user_turns` turns are kept as they are. On a tool continuation
   (the history ends with a tool result) at least the current turn is kept, so the active chain of
   calls and results reaches the model whole.
3. Older turns are trimmed progressively: thinking blocks are dropped (only the current turn's
   thinking must be sent back), and each text — a text block, a tool result's text — longer than
   its cap is cut, with ``[truncated N chars]`` appended. The caps come from the room left for
   older history and its density: ``base = (max_history_tokens - system - recent) * 4 / texts``;
   the turn of age `a` (1 = the newest older turn) gets ``max(min_cap, 2 * base / (a + 1))``
   characters, so older turns get less. `caps` overrides them, per age.
4. Still over the budget, and not on a tool continuation: the oldest turns are dropped whole,
   then any turn that does not start with a user message, so the history starts on a user turn.
   A tool continuation never loses turns (dropping there breaks the active chain).

Pure: returns new messages and the actions taken (`truncate`, `drop_thinking`, `drop`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.model import (
    AssistantMessage,
    Message,
    RedactedThinkingBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    UserMessage,
)
from conformance.runtime.budget import CHARS_PER_TOKEN
from conformance.runtime.context.tokens import estimate_tokens

MARKER = "[truncated {n} chars]"


@dataclass(frozen=True)
class TrimSettings:
    max_history_tokens: int
    keep_recent_user_turns: int = 1
    caps: tuple[int, ...] = ()
    """Manual per-age caps in characters (index 0: the newest older turn); the last one repeats."""
    min_cap: int = 64

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrimSettings:
        return cls(
            max_history_tokens=int(data["max_history_tokens"]),
            keep_recent_user_turns=int(data.get("keep_recent_user_turns", 1)),
            caps=tuple(int(c) for c in data.get("caps", ())),
            min_cap=int(data.get("min_cap", 64)),
        )


@dataclass
class Trimmed:
    messages: list[Message]
    actions: list[dict[str, Any]] = field(default_factory=list)
    tokens_before: int = 0
    tokens_after: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "messages": [m.model_dump(mode="json", exclude_none=True) for m in self.messages],
            "actions": self.actions,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
        }


def user_turns(messages: Sequence[Message]) -> list[list[Message]]:
    """Messages grouped into turns, each starting at a user message (the first may not)."""
    turns: list[list[Message]] = []
    for message in messages:
        if isinstance(message, UserMessage) or not turns:
            turns.append([message])
        else:
            turns[-1].append(message)
    return turns


def split_history(
    messages: Sequence[Message], keep_recent: int
) -> tuple[list[Message], list[list[Message]], list[list[Message]]]:
    """(leading system messages, older turns, recent turns)."""
    n_system = 0
    while n_system < len(messages) and isinstance(messages[n_system], SystemMessage):
        n_system += 1
    system = list(messages[:n_system])
    turns = user_turns(messages[n_system:])
    continuation = bool(messages) and isinstance(messages[-1], ToolResultMessage)
    keep = max(keep_recent, 1 if continuation else 0)
    cut = max(0, len(turns) - keep)
    return system, turns[:cut], turns[cut:]


def _cut(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[:cap] + MARKER.format(n=len(text) - cap)


def _texts(turn: list[Message]) -> list[int]:
    out: list[int] = []
    for message in turn:
        if isinstance(message, ToolResultMessage):
            out.append(sum(len(b.text) for b in message.content if isinstance(b, TextBlock)))
        else:
            out += [len(b.text) for b in message.content if isinstance(b, TextBlock)]
    return out


def _trim_message(message: Message, cap: int, index: int, actions: list[dict[str, Any]]) -> Message:
    if isinstance(message, ToolResultMessage):
        text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
        if len(text) <= cap:
            return message
        actions.append({"action": "truncate", "index": index, "chars": len(text) - cap})
        others = [b for b in message.content if not isinstance(b, TextBlock)]
        return message.model_copy(update={"content": [TextBlock(text=_cut(text, cap)), *others]})
    blocks: list[Any] = []
    changed = False
    for block in message.content:
        if isinstance(block, ThinkingBlock | RedactedThinkingBlock):
            actions.append({"action": "drop_thinking", "index": index})
            changed = True
            continue
        if isinstance(block, TextBlock) and len(block.text) > cap:
            actions.append({"action": "truncate", "index": index, "chars": len(block.text) - cap})
            block = TextBlock(text=_cut(block.text, cap))
            changed = True
        blocks.append(block)
    if not changed:
        return message
    if isinstance(message, AssistantMessage) and not blocks:
        blocks = [TextBlock(text=MARKER.format(n=0))]
    return message.model_copy(update={"content": blocks})


def age_caps(settings: TrimSettings, room_tokens: int, older: list[list[Message]]) -> list[int]:
    """The character cap of each older turn, oldest first (see the module doc)."""
    n_texts = sum(len(_texts(t)) for t in older)
    base = max(0, room_tokens) * CHARS_PER_TOKEN // max(n_texts, 1)
    caps: list[int] = []
    for position in range(len(older)):
        age = len(older) - position
        if settings.caps:
            caps.append(settings.caps[min(age, len(settings.caps)) - 1])
        else:
            caps.append(max(settings.min_cap, 2 * base // (age + 1)))
    return caps


def trim_history(messages: Sequence[Message], settings: TrimSettings) -> Trimmed:
    """The history trimmed to `settings.max_history_tokens` (see the module doc)."""
    before = estimate_tokens(messages)
    if before <= settings.max_history_tokens:
        return Trimmed(list(messages), [], before, before)
    continuation = bool(messages) and isinstance(messages[-1], ToolResultMessage)
    system, older, recent = split_history(messages, settings.keep_recent_user_turns)
    recent_flat = [m for t in recent for m in t]
    room = settings.max_history_tokens - estimate_tokens(system) - estimate_tokens(recent_flat)
    caps = age_caps(settings, room, older)
    actions: list[dict[str, Any]] = []
    index = len(system)
    trimmed_older: list[list[Message]] = []
    for turn, cap in zip(older, caps, strict=True):
        new_turn: list[Message] = []
        for message in turn:
            new_turn.append(_trim_message(message, cap, index, actions))
            index += 1
        trimmed_older.append(new_turn)
    positions = [len(system)]
    for turn in older:
        positions.append(positions[-1] + len(turn))
    if not continuation:
        first = 0
        while first < len(trimmed_older):
            current = [*system, *[m for t in trimmed_older[first:] for m in t], *recent_flat]
            starts_on_user = isinstance(trimmed_older[first][0], UserMessage)
            if estimate_tokens(current) <= settings.max_history_tokens and (first == 0 or starts_on_user):
                break
            actions.append({"action": "drop", "index": positions[first], "count": len(trimmed_older[first])})
            first += 1
        trimmed_older = trimmed_older[first:]
    out = [*system, *[m for t in trimmed_older for m in t], *recent_flat]
    return Trimmed(out, actions, before, estimate_tokens(out))
