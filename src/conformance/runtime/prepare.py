"""What the reference runtime does to a conversation before a codec encodes it.

features and options the model lacks refused (`context.compat`) → repair (transcript rules for the target, calls
left without a result at the end answered as the request is made) →
system prompt folded for models without a system role → tool schemas sanitized for the profile → max tokens
clamped to what the model and its context window allow → options the model rejects removed, where the
request opted into it (`Options.drop_unsupported`).
Every change is reported (`actions`, `warnings`); the sanitized schemas are kept so the defaults
they lost can be applied client-side to the tool calls that come back.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs import WireRequest, codec_for
from conformance.model import Conversation, ToolSpec
from conformance.runtime.budget import effective_max_tokens, filter_options
from conformance.runtime.context.compat import check_features, fold_system
from conformance.runtime.repair import Action, RepairOptions, repair
from conformance.runtime.schema import SanitizedSchema, sanitize_schema


@dataclass
class Prepared:
    conversation: Conversation
    actions: list[Action] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    schemas: dict[str, SanitizedSchema] = field(default_factory=dict)
    """Per tool name: the schema as sent, and the defaults removed from it."""

    def with_defaults(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Tool-call arguments with the schema defaults the provider never saw filled in."""
        from conformance.runtime.schema import apply_defaults

        sanitized = self.schemas.get(tool)
        return arguments if sanitized is None else apply_defaults(arguments, sanitized)


def prepare(
    conv: Conversation,
    profile: ProviderProfile,
    *,
    options: RepairOptions | None = None,
    fail_early: bool = False,
    answer_pending: bool = True,
) -> Prepared:
    """`fail_early`: raise `ContextBudgetError` when the input leaves no room for output.
    `answer_pending`: calls of the last assistant turn still without a result get the synthesized
    error result (a request that ends before a call's result is rejected by every provider that
    pairs them; `RepairOptions.answer_pending`)."""
    model = conv.model or profile.default_model
    check_features(conv, profile)  # runtime.context.compat: explicit asks the model cannot honour
    # the rules never modify their input (tests/runtime/test_properties.py), so no defensive copy
    sending = dataclasses.replace(options or RepairOptions(), answer_pending=answer_pending)
    repaired = repair(conv.messages, profile, model=model, options=sending, copy_input=False)
    warnings = list(repaired.warnings)
    folded, n_system = fold_system(repaired.messages, profile, model)
    if n_system:
        warnings.append(f"{n_system} system message(s) sent in the first user turn: {model} has no system role")
        repaired = dataclasses.replace(repaired, messages=folded)
    schemas: dict[str, SanitizedSchema] = {}
    tools: list[ToolSpec] = []
    for tool in conv.tools:
        sanitized = sanitize_schema(tool.parameters, profile)
        schemas[tool.name] = sanitized
        warnings += [f"tool {tool.name}: {w}" for w in sanitized.warnings]
        tools.append(tool.model_copy(update={"parameters": sanitized.schema}))
    opts, dropped = filter_options(conv.options, profile, model)
    warnings += dropped
    if opts.max_tokens is not None or profile.max_tokens_required or fail_early:
        # a provider that requires max_tokens gets the profile default clamped too, never a raw 4096
        clamped = effective_max_tokens(opts.max_tokens, profile, model, repaired.messages, tools, fail_early=fail_early)
        if opts.max_tokens is not None and clamped != opts.max_tokens:
            warnings.append(f"max_tokens {opts.max_tokens} lowered to {clamped} for {model}")
        if opts.max_tokens is not None or profile.max_tokens_required:
            opts = opts.model_copy(update={"max_tokens": clamped})
    prepared = conv.model_copy(update={"messages": repaired.messages, "tools": tools, "options": opts})
    return Prepared(prepared, list(repaired.actions), warnings, schemas)


def wire_request(conversation: Conversation, profile: ProviderProfile) -> WireRequest:
    """prepare (repair, schemas, budget, options) → the dialect's encoder: the request the reference sends."""
    return codec_for(profile).encode(prepare(conversation, profile).conversation, profile)
