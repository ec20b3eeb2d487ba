"""Max-tokens budgeting and the request options a model accepts.

Input estimate: the number of characters of the compact JSON of the messages and tools, divided
by 4 and rounded up. It is a documented heuristic, not a tokenizer: it errs on the generous side
for English and code, and is only used to keep ``max_tokens`` inside the context window.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from conformance.capabilities import ProviderProfile
from conformance.exceptions import ContextBudgetError, UnsupportedFeatureError
from conformance.model import Message, Options, ToolSpec, dump

CHARS_PER_TOKEN = 4


def _jsonable(item: Message | ToolSpec | dict[str, Any]) -> Any:
    return dump(item) if isinstance(item, BaseModel) else item


def estimate_input_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec | dict[str, Any]] = ()) -> int:
    """ceil(characters of the JSON of messages + tools / 4)."""
    text = json.dumps(
        {"messages": [_jsonable(m) for m in messages], "tools": [_jsonable(t) for t in tools]},
        ensure_ascii=False,
        separators=(",", ":"),
        sort_keys=True,
    )
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def effective_max_tokens(
    requested: int | None,
    profile: ProviderProfile,
    model: str | None,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec | dict[str, Any]] = (),
    *,
    fail_early: bool = False,
) -> int:
    """The smallest of: the request (else the profile default), the model's max output, and the
    context window minus the estimated input. Never below 1; with `fail_early`, a residual window
    of 0 or less raises `ContextBudgetError` instead of sending 1."""
    info = profile.model_info(model)
    wanted = profile.default_max_tokens if requested is None else requested
    estimate = estimate_input_tokens(messages, tools)
    room = info.context_window - estimate
    if fail_early and room <= 0:
        name = model or profile.default_model
        raise ContextBudgetError(
            f"the input (about {estimate} tokens) leaves {room} tokens of the {info.context_window}-token window",
            where=f"{profile.name} model {name!r}",
        )
    return max(1, min(wanted, info.max_output, room))


def max_tokens_field(profile: ProviderProfile, model: str | None) -> str:
    """The request field for max tokens: reasoning models use ``reasoning_max_tokens_field``."""
    if profile.model_info(model).reasoning and profile.reasoning_max_tokens_field:
        return profile.reasoning_max_tokens_field
    return profile.max_tokens_field


def rejected_options(options: Options, profile: ProviderProfile, model: str | None) -> list[str]:
    """The options set in `options` that the model rejects: ``temperature`` and ``top_p`` where it
    is ``accepts_temperature: False``, ``stop`` where it is ``accepts_stop: False``."""
    info = profile.model_info(model)
    rejects = {
        "temperature": not info.accepts_temperature,
        "top_p": not info.accepts_temperature,
        "stop": not info.accepts_stop,
    }
    return [name for name, rejected in rejects.items() if rejected and getattr(options, name) not in (None, [])]


def check_options(options: Options, profile: ProviderProfile, model: str | None) -> None:
    """Raise `UnsupportedFeatureError` (``where="options.<field>"``) for the first option set that
    the model rejects, unless the caller opted into ``drop_unsupported``."""
    rejected = rejected_options(options, profile, model)
    if rejected and not options.drop_unsupported:
        name = model or profile.default_model
        raise UnsupportedFeatureError(
            f"{profile.name} model {name!r} does not accept {rejected[0]} (drop_unsupported: true sends it without)",
            where=f"options.{rejected[0]}",
        )


def filter_options(options: Options, profile: ProviderProfile, model: str | None) -> tuple[Options, list[str]]:
    """The options as sent, and a warning per option removed: an option the model rejects is an
    `UnsupportedFeatureError` (`check_options`), removed only with ``options.drop_unsupported``."""
    check_options(options, profile, model)
    name = model or profile.default_model
    rejected = rejected_options(options, profile, model)
    warnings = [f"{field} removed: {profile.name} model {name!r} does not accept it" for field in rejected]
    return options.model_copy(update=dict.fromkeys(rejected)), warnings
