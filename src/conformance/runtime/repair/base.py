"""What every repair rule shares: the `Action` record, the options and the rule context.

A rule is a pure function ``rule(messages, ctx) -> (new_messages, actions)``. It never mutates
its input (the engine hands it copies, and rules build new lists and use ``model_copy``), and every
change it makes is described by one `Action`. ``Action.index`` is the position of the message in
the transcript *as that rule received it* (the output of the previous rule).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from conformance.capabilities import ProviderProfile
from conformance.model import AssistantMessage, Message, ToolCallBlock, ToolResultMessage

ForeignThinking = Literal["drop", "text"]


@dataclass(frozen=True)
class Action:
    """One change made by one rule."""

    rule: str
    index: int
    detail: str

    def to_json(self) -> dict[str, object]:
        """The contract shape: ``{"rule", "index", "detail"}``."""
        return {"rule": self.rule, "index": self.index, "detail": self.detail}


@dataclass(frozen=True)
class Loss(Action):
    """An action that removed content: the engine also reports it as a warning."""


@dataclass(frozen=True)
class RepairOptions:
    foreign_thinking: ForeignThinking = "drop"
    """Thinking that may not be sent back: ``drop`` it, or turn it into plain ``text``."""
    gemini_proxy: bool = False
    """Flatten the transcript to text turns for proxies that only pass text (see `repair.proxy`)."""
    answer_pending: bool = False
    """The transcript is about to be sent as a request: calls in the last assistant turn that have
    no result get the synthesized error result too (kept pending otherwise: a transcript may end
    while its tools run, a request may not). Set by `runtime.prepare`."""


@dataclass(frozen=True)
class RepairContext:
    profile: ProviderProfile
    model: str
    """The target model (the caller's, else the profile's default)."""
    options: RepairOptions = field(default_factory=RepairOptions)


Rule = Callable[[list[Message], RepairContext], tuple[list[Message], list[Action]]]


def tool_calls(message: AssistantMessage) -> list[ToolCallBlock]:
    return [b for b in message.content if isinstance(b, ToolCallBlock)]


def call_owners(messages: Sequence[Message]) -> dict[int, int | None]:
    """Map each tool-result index to the index of the assistant message that owns it.

    The owner is the nearest earlier assistant message holding a call with the result's id;
    ``None`` when there is none (an orphan).
    """
    owners: dict[int, int | None] = {}
    latest: dict[str, int] = {}
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            for call in tool_calls(message):
                latest[call.id] = i
        elif isinstance(message, ToolResultMessage):
            owners[i] = latest.get(message.tool_call_id)
    return owners
