"""The repair engine: run the ordered rules and collect what they did."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.model import Message, dump
from conformance.runtime.repair.base import Action, Loss, RepairContext, RepairOptions, Rule
from conformance.runtime.repair.content import drop_empty
from conformance.runtime.repair.ids import rewrite_tool_ids, strip_thought_suffix, unique_call_ids
from conformance.runtime.repair.prefill import trim_prefill
from conformance.runtime.repair.proxy import gemini_proxy
from conformance.runtime.repair.results import (
    dedupe_tool_results,
    drop_failed_turns,
    drop_orphan_tool_results,
    place_tool_results,
    synthesize_missing_results,
)
from conformance.runtime.repair.server_tools import foreign_server_tools
from conformance.runtime.repair.surrogates import replace_lone_surrogates
from conformance.runtime.repair.thinking import foreign_thinking, thinking_first
from conformance.runtime.repair.turns import alternate_roles, first_turn_user

RULES: tuple[Rule, ...] = (
    replace_lone_surrogates,
    strip_thought_suffix,
    unique_call_ids,
    drop_failed_turns,
    drop_orphan_tool_results,
    dedupe_tool_results,
    place_tool_results,
    synthesize_missing_results,
    foreign_thinking,
    foreign_server_tools,
    thinking_first,
    gemini_proxy,
    trim_prefill,
    drop_empty,
    first_turn_user,
    alternate_roles,
    rewrite_tool_ids,
)
"""In order. Text that is not Unicode is mended first, so every later rule sees valid strings.
Ids are made unique before results are paired; pairing is settled before content rules run; empty
content goes before turn order is fixed; ids are rewritten last, once every call and result is
final."""


@dataclass(frozen=True)
class RepairResult:
    messages: list[Message]
    actions: list[Action] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The ``conformance repair`` output shape (docs/normalized-form.md)."""
        return {
            "messages": [dump(m) for m in self.messages],
            "actions": [a.to_json() for a in self.actions],
            "warnings": list(self.warnings),
        }


def repair(
    messages: Sequence[Message],
    profile: ProviderProfile,
    *,
    model: str | None = None,
    options: RepairOptions = RepairOptions(),  # noqa: B008 - frozen dataclass, safe default
    copy_input: bool = True,
) -> RepairResult:
    """Repair `messages` for `profile` (and `model`, default the profile's).

    Pure, deterministic and idempotent: the input is not modified, and repairing the output again
    changes nothing. Every change is an `Action`; changes that remove content also add a warning.
    `copy_input=False` skips the defensive deep copy when the caller owns freshly parsed messages.
    """
    ctx = RepairContext(profile=profile, model=model or profile.default_model, options=options)
    current: list[Message] = [m.model_copy(deep=True) for m in messages] if copy_input else list(messages)
    actions: list[Action] = []
    for rule in RULES:
        current, done = rule(current, ctx)
        actions.extend(done)
    warnings = [f"{a.rule} (message {a.index}): {a.detail}" for a in actions if isinstance(a, Loss)]
    return RepairResult(messages=current, actions=actions, warnings=warnings)
