"""Recovery for Gemini-compatible proxies that reject a continuation turn's shape.

Proxies in front of Gemini (LiteLLM and the routers built on it) reject tool-result continuations
with `Unable to submit request because Thought signature is not valid` (a thought signature,
or a `__thought__` id suffix, that the proxy cannot pass on) or `Please use a valid role: user,
model` (a `tool` or structured `assistant` turn the proxy cannot map). The recovery is the proxy
mode of `runtime.repair.proxy`: the history flattened to text turns (tool results as user text
turns, signatures and thinking dropped, `__thought__` suffixes stripped), and a tool-result
continuation sent without tools (so no tool schema reaches the proxy again). It is tried once per
turn, and `run_turn(gemini_proxy=True)` uses it from the first request.
"""

from __future__ import annotations

import re

from conformance.capabilities import ProviderProfile
from conformance.model import Conversation, ProviderError, ToolResultMessage
from conformance.runtime.repair import RepairOptions, repair

PROXY_ERRORS = re.compile(r"thought signature is not valid|valid role: user, model", re.IGNORECASE)


def needs_proxy_mode(error: ProviderError) -> bool:
    """A 400 whose message is one of the proxy rejections above."""
    return error.kind == "invalid_request" and bool(PROXY_ERRORS.search(error.message))


def proxy_conversation(conv: Conversation, profile: ProviderProfile) -> tuple[Conversation, int]:
    """The conversation in proxy mode (tools left out on a tool-result continuation), and how many
    messages were changed."""
    model = conv.model or profile.default_model
    repaired = repair(conv.messages, profile, model=model, options=RepairOptions(gemini_proxy=True))
    changed = len({a.index for a in repaired.actions if a.rule == "gemini_proxy"})
    continuation = bool(conv.messages) and isinstance(conv.messages[-1], ToolResultMessage)
    update: dict[str, object] = {"messages": repaired.messages}
    if continuation:
        update["tools"] = []
        if conv.options.tool_choice is not None:
            update["options"] = conv.options.model_copy(update={"tool_choice": None})
    return conv.model_copy(update=update), changed
