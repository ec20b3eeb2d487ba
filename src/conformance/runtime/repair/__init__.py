"""Transcript repair: ordered, small, pure rules that make a transcript sendable to a provider.

Each rule is ``rule(messages, ctx) -> (new_messages, actions)``; `repair` runs them in the order of
`RULES` and returns a `RepairResult` (messages, actions, warnings). Modules by rule group:

- `surrogates`: unpaired UTF-16 surrogates replaced, split pairs joined;
- `ids`: ``__thought__`` id suffixes, reused ids, ids rewritten to the provider's pattern;
- `results`: failed turns, orphan, duplicate, displaced and missing tool results;
- `thinking`: foreign thinking and signatures, thinking first in a message;
- `server_tools`: server-tool blocks the target cannot take back;
- `proxy`: the optional text-only Gemini-proxy mode;
- `prefill`: no trailing whitespace on a final assistant text where the provider rejects it;
- `content`: empty blocks and messages;
- `turns`: first turn is a user turn, same-role neighbours merged or bridged.
"""

from conformance.runtime.repair.base import Action, ForeignThinking, Loss, RepairContext, RepairOptions, Rule
from conformance.runtime.repair.engine import RULES, RepairResult, repair

__all__ = [
    "RULES",
    "Action",
    "ForeignThinking",
    "Loss",
    "RepairContext",
    "RepairOptions",
    "RepairResult",
    "Rule",
    "repair",
]
