"""Compaction: older history replaced by a summary the model writes, through the turn loop.

The history is split as trimming splits it (`trim.split_history`): leading system messages, older
user turns, the most recent `keep_recent_user_turns` turns. The older turns are rendered as text
and summarised by the provider with `run_turn`, so the summarisation request has the same retry
policy, auth rotation and error classification as any other request. The summary replaces the
older turns as one user message headed ``[compaction summary of N earlier messages]``.

Failure modes, each typed (`CompactionError.kind`):

- `provider_error`: the summarisation call failed (after the policy's retries); the history is
  returned untouched with the provider's error;
- `nothing_to_compact`: every message is recent (a single large turn): cannot compact further;
- `summary_input_too_large`: the summarisation input overflowed the window even after
  `max_shrinks` halvings. The input is chunked to `summary_input_tokens` (default: the window less
  the summary and the prompt) and summarised chunk by chunk, each request carrying the summary so
  far; a typed `context_overflow` halves the chunk budget and resumes at the failed chunk;
- `empty_after_compaction`: the result holds no message besides the system prompt (see
  `session.compact_session`, which then restores the backup).

A summary longer than `max_summary_tokens` (× 4 characters) is truncated, with
``[summary truncated N chars]`` appended.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from conformance.capabilities import ProviderProfile
from conformance.model import (
    Conversation,
    ImageBlock,
    Message,
    Options,
    ProviderError,
    SystemMessage,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from conformance.runtime.auth import AuthPool
from conformance.runtime.budget import CHARS_PER_TOKEN
from conformance.runtime.clock import Clock
from conformance.runtime.context.hook import Compacted, Compactor, Why
from conformance.runtime.context.tokens import count_tokens, estimate_text
from conformance.runtime.context.trim import TrimSettings, split_history, trim_history
from conformance.runtime.retry import RetryPolicy
from conformance.runtime.turn import run_turn

ErrorKindC = Literal["provider_error", "nothing_to_compact", "summary_input_too_large", "empty_after_compaction"]

SUMMARY_HEADER = "[compaction summary of {n} earlier messages]"
SUMMARY_PROMPT = (
    "You compact conversations so they can go on in a smaller context window. Summarise the "
    "conversation you are given: keep every decision, fact, name, number, file path, tool result "
    "that still matters and every open task. Answer with the summary only."
)
PROMPT_MARGIN = 256
"""Tokens kept free in a summarisation request besides the summary and the prompt."""


@dataclass(frozen=True)
class CompactSettings:
    keep_recent_user_turns: int = 1
    max_summary_tokens: int = 1024
    summary_input_tokens: int | None = None
    """Token budget of one summarisation chunk; default: the window less the summary and prompt."""
    max_shrinks: int = 3
    threshold: float = 0.8
    """Automatic compaction before a turn whose history reaches this fraction of the window."""
    context_window: int | None = None
    """The window to compact for; default: the model's, from the profile."""
    model: str | None = None
    """The model that writes the summary; default: the conversation's."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CompactSettings:
        known = set(cls.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown compaction settings: {', '.join(sorted(unknown))}")
        return cls(**data)


@dataclass
class CompactionError:
    kind: ErrorKindC
    message: str
    provider_error: ProviderError | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.provider_error is not None:
            out["provider_error"] = self.provider_error.model_dump(mode="json", exclude_none=True)
        return out


@dataclass
class CompactionResult:
    messages: list[Message]
    summarized: int = 0
    summary: str = ""
    error: CompactionError | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Summarizer:
    """Everything a summarisation request needs to go through the turn loop."""

    profile: ProviderProfile
    transport: httpx.AsyncBaseTransport
    clock: Clock
    rng: random.Random
    keys: AuthPool | str | None = None
    policy: RetryPolicy | None = None


def render(messages: Sequence[Message]) -> list[str]:
    """Each message as plain text, for the summarisation prompt."""
    out: list[str] = []
    for message in messages:
        if isinstance(message, ToolResultMessage):
            flag = " error" if message.is_error else ""
            text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
            out.append(f"[tool_result {message.tool_name or ''} {message.tool_call_id}{flag}]\n{text}")
            continue
        parts: list[str] = []
        for block in message.content:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            elif isinstance(block, ToolCallBlock):
                parts.append(f"[tool_call {block.name} {block.id}] {json.dumps(block.arguments, sort_keys=True)}")
            elif isinstance(block, ImageBlock):
                parts.append("[image]")
        out.append(f"{message.role}: " + "\n".join(parts))
    return out


def chunks(rendered: list[str], budget: int) -> list[list[str]]:
    """Rendered messages grouped so each group's text stays within `budget` tokens; a message larger
    than the budget alone is cut to it."""
    groups: list[list[str]] = []
    size = 0
    limit = budget * CHARS_PER_TOKEN
    for text in rendered:
        if len(text) > limit:
            text = text[:limit] + f"[truncated {len(text) - limit} chars]"
        cost = estimate_text(text) + 1
        if groups and size + cost <= budget:
            groups[-1].append(text)
            size += cost
        else:
            groups.append([text])
            size = cost
    return groups


def summary_request(chunk: list[str], previous: str, model: str | None, max_tokens: int) -> Conversation:
    body = "\n\n".join(chunk)
    prefix = f"Summary so far:\n{previous}\n\n" if previous else ""
    return Conversation(
        model=model,
        messages=[
            SystemMessage(content=[TextBlock(text=SUMMARY_PROMPT)]),
            UserMessage(content=[TextBlock(text=f"{prefix}Conversation to summarise:\n\n{body}")]),
        ],
        options=Options(max_tokens=max_tokens),
    )


def summary_message(summary: str, count: int) -> UserMessage:
    return UserMessage(content=[TextBlock(text=SUMMARY_HEADER.format(n=count) + "\n" + summary)])


def _window(settings: CompactSettings, profile: ProviderProfile, model: str | None) -> int:
    return settings.context_window or profile.model_info(model).context_window


async def summarize(
    older: Sequence[Message], settings: CompactSettings, model: str | None, via: Summarizer, trace: list[dict[str, Any]]
) -> tuple[str, CompactionError | None]:
    """The summary of `older`, chunked and shrunk on overflow (see the module doc)."""
    budget = settings.summary_input_tokens or (
        _window(settings, via.profile, model)
        - settings.max_summary_tokens
        - estimate_text(SUMMARY_PROMPT)
        - PROMPT_MARGIN
    )
    rendered = render(older)
    done = 0  # rendered messages summarised so far
    shrinks = 0
    summary = ""
    while done < len(rendered):
        chunk = chunks(rendered[done:], max(budget, 1))[0]
        conv = summary_request(chunk, summary, model, settings.max_summary_tokens)
        trace.append({"action": "summarize", "count": len(chunk)})
        turn = await run_turn(
            conv, via.profile, transport=via.transport, clock=via.clock, rng=via.rng, keys=via.keys, policy=via.policy
        )
        trace += [s.model_dump(exclude_none=True) for s in turn.trace]
        if turn.error is not None or turn.message is None:
            error = turn.error or ProviderError(kind="server", message="no answer")
            if error.kind == "context_overflow" and shrinks < settings.max_shrinks and budget > 1:
                shrinks += 1
                budget //= 2
                trace.append({"action": "shrink", "count": budget})
                continue
            if error.kind == "context_overflow":
                return summary, CompactionError(
                    "summary_input_too_large",
                    f"the summarisation input overflows the window after {shrinks} shrinks",
                    error,
                )
            return summary, CompactionError("provider_error", f"the summarisation call failed: {error.kind}", error)
        summary = "".join(b.text for b in turn.message.content if isinstance(b, TextBlock)).strip()
        done += len(chunk)
    return summary, None


def truncate_summary(summary: str, settings: CompactSettings, trace: list[dict[str, Any]]) -> str:
    limit = settings.max_summary_tokens * CHARS_PER_TOKEN
    if len(summary) <= limit:
        return summary
    trace.append({"action": "truncate_summary", "count": len(summary) - limit})
    return summary[:limit] + f"[summary truncated {len(summary) - limit} chars]"


async def compact_messages(
    messages: Sequence[Message], settings: CompactSettings, model: str | None, via: Summarizer
) -> CompactionResult:
    """The history with its older turns summarised, or the typed reason why not (history untouched)."""
    system, older, recent = split_history(messages, settings.keep_recent_user_turns)
    older_flat = [m for t in older for m in t]
    trace: list[dict[str, Any]] = []
    if not older_flat:
        nothing = CompactionError("nothing_to_compact", "every message is in the recent window: cannot compact further")
        return CompactionResult(list(messages), error=nothing, trace=trace)
    summary, error = await summarize(older_flat, settings, settings.model or model, via, trace)
    if error is not None:
        return CompactionResult(list(messages), error=error, trace=trace)
    summary = truncate_summary(summary, settings, trace)
    head = [summary_message(summary, len(older_flat))] if summary else []
    out = [*system, *head, *[m for t in recent for m in t]]
    if not any(not isinstance(m, SystemMessage) for m in out):
        empty = CompactionError("empty_after_compaction", "compaction left no message besides the system prompt")
        return CompactionResult(list(messages), error=empty, trace=trace)
    return CompactionResult(out, len(older_flat), summary, None, trace)


def turn_compactor(settings: CompactSettings | None, via: Summarizer, trim: TrimSettings | None = None) -> Compactor:
    """A `hook.Compactor` for `run_turn`. Before the first send: the history is trimmed when `trim`
    is given and it is over `max_history_tokens` (trace step `trim`); otherwise it is compacted when
    it reaches `threshold` × the window. After a context overflow: compacted, once."""

    async def compactor(conv: Conversation, why: Why) -> Compacted | None:
        model = conv.model or via.profile.default_model
        if why == "threshold" and trim is not None:
            trimmed = trim_history(conv.messages, trim)
            if trimmed.actions:
                reason = f"history trimmed from {trimmed.tokens_before} to {trimmed.tokens_after} tokens"
                new = conv.model_copy(update={"messages": trimmed.messages})
                return Compacted(new, len(trimmed.actions), reason, action="trim")
        if settings is None:
            return None
        if why == "threshold":
            used = count_tokens(conv.messages, conv.tools).tokens
            limit = settings.threshold * _window(settings, via.profile, model)
            if used < limit:
                return None
            reason = f"history at {used} tokens, threshold {limit:g}"
        else:
            reason = "context overflow: compact and retry once"
        result = await compact_messages(conv.messages, settings, model, via)
        if result.error is not None:
            return Compacted(None, 0, result.error.message, result.error.provider_error)
        new = conv.model_copy(update={"messages": result.messages})
        return Compacted(new, result.summarized, reason)

    return compactor
