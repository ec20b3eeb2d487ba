"""Mutant runtimes for the rows that judge the seeds' turn-loop behaviours: the reference runtime with
one realistic bug each, planted by swapping one of the loop's parts for the length of one call.

- `NoProxyMode`: a proxy's `Please use a valid role` 400 is returned as it is (seed 001: the
  continuation is never flattened into proxy mode);
- `NoToolTypeRetry` (from `policy_mutants`): a proxy's `tool_type` 400 is returned as it is;
- `NoTokenFloor` (seed 002): the effective `max_tokens` is clamped to the model's caps and what the
  window leaves, but not to at least 1, so an input that fills the window sends a negative limit;
- `SharedThinkSplitter` (seed 004): one `<think>` tag splitter serves every response the runtime
  reads, its state (inside a tag, a partial tag held back) carried from one response to the next;
- `FirstUsage` (seed 001): the token count starts from the first assistant usage, not the latest;
- `ImagesCostNothing` (seed 001): the estimate after the usage baseline leaves images out;
- `TriggerIgnoresImages` (seed 000, 5.1): auto-compaction's trigger counts the history after the
  usage baseline by its text, images left out (the `count` answer is the reference's);
- `DropsOrphansSilently` (seed 000, 3.2): an orphaned tool result is dropped, its drop recorded as
  an action, but no warning is given;
- `SkipsDamageSilently` (seed 000, 4.2): a transcript's malformed lines are skipped without a warning;
- `ExactCountsTextOnly` (seed 000, 5.1): the exact count is the tokenizer's count of the message
  texts, the chat format's tokens around each message and before the reply left out;
- `UnlockedStore` (seed 000, 4.1): the store's writers take no lock, neither the session's queue nor
  the data directory's file locks, so two writers read the registry of conversations, each adds its
  own and writes it back, and one overwrites the other (its read held a while, as on a busy disk, so
  the race is lost every time);
- `RateLimitsUncapped`: every 429 is waited out and sent again, past `max_attempts`;
- `AuthIsFinal`: a 401 ends the turn, a second key left unused;
- `NoFallback` (seed 002): the fallback providers a turn is given are never used;
- `FallsBackOnAnything`: a refused request (400) is sent to the fallback provider too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import time
import typing
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from unittest import mock

from conformance.capabilities import ProviderProfile
from conformance.codecs.openai_chat import content
from conformance.codecs.openai_chat.think_tags import ThinkTagSplitter
from conformance.model import AssistantMessage, ImageBlock, Message, ProviderError, TextBlock
from conformance.runtime import compress, retry, turn
from conformance.runtime.budget import estimate_input_tokens
from conformance.runtime.context import api as context_api
from conformance.runtime.context import compact as context_compact
from conformance.runtime.context import tokens
from conformance.runtime.context.tokens import TokenCount
from conformance.runtime.protocol import TurnRequest
from conformance.runtime.reference import ReferenceRuntime
from conformance.store.files import FileBackend
from tests.harness.policy_mutants import NoToolTypeRetry


@contextmanager
def _patched(module: Any, name: str, value: Any) -> Iterator[None]:
    with mock.patch.object(module, name, value):
        yield


class NoProxyMode(ReferenceRuntime):
    """Never switches to proxy mode: a proxy's role rejection ends the turn."""

    name = "mutant-no-proxy-mode"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with _patched(turn, "needs_proxy_mode", lambda error: False):
            return super().turn(request)


prepare = importlib.import_module("conformance.runtime.prepare")  # the package exports a function of that name


def _unfloored(
    requested: int | None,
    profile: ProviderProfile,
    model: str | None,
    messages: Sequence[Any],
    tools: Sequence[Any] = (),
    **kw: Any,
) -> int:
    info = profile.model_info(model)
    wanted = profile.default_max_tokens if requested is None else requested
    return min(wanted, info.max_output, info.context_window - estimate_input_tokens(messages, tools))


class NoTokenFloor(ReferenceRuntime):
    """Clamps max_tokens to the model's caps and the window's remainder, never to at least 1."""

    name = "mutant-no-token-floor"

    def encode(self, conversation: Any, provider: str) -> Any:
        with _patched(prepare, "effective_max_tokens", _unfloored):
            return super().encode(conversation, provider)

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with _patched(prepare, "effective_max_tokens", _unfloored):
            return super().turn(request)


class SharedThinkSplitter(ReferenceRuntime):
    """Reads `<think>` tags with one splitter for every response (seed 004's `reasoningState`,
    never reset at the loop's start)."""

    name = "mutant-shared-think-splitter"

    def __init__(self) -> None:
        self.splitter = ThinkTagSplitter()

    @contextmanager
    def _shared(self) -> Iterator[None]:
        original = content.ChoiceState.__init__
        splitter = self.splitter

        def init(state: content.ChoiceState, profile: ProviderProfile, builder: Any) -> None:
            original(state, profile, builder)
            if state.tags is not None:
                state.tags = splitter

        with _patched(content.ChoiceState, "__init__", init):
            yield

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with self._shared():
            return super().turn(request)

    def decode(self, *args: Any, **kwargs: Any) -> Any:
        with self._shared():
            return super().decode(*args, **kwargs)


def _first_usage(messages: Sequence[Message], tools: Sequence[Any] = ()) -> TokenCount:
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage) and message.usage is not None and message.usage.input_tokens > 0:
            baseline = message.usage.input_tokens + message.usage.output_tokens
            added = list(messages[i + 1 :])
            estimated = tokens._estimate_messages(added) if added else 0
            return TokenCount(baseline + estimated, "usage", baseline, estimated)
    return tokens.count_tokens(messages, tools)


def _text_only(messages: Sequence[Message]) -> int:
    kept = [m.model_copy(update={"content": [b for b in m.content if not isinstance(b, ImageBlock)]}) for m in messages]
    return ESTIMATE(kept)


ESTIMATE = tokens._estimate_messages


class FirstUsage(ReferenceRuntime):
    """Counts tokens from the first assistant turn that reported usage, not the latest."""

    name = "mutant-first-usage"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        with _patched(context_api, "count_tokens", _first_usage):
            return super().context(request, transport)


class ImagesCostNothing(ReferenceRuntime):
    """Estimates the messages after the usage baseline by their text, images left out."""

    name = "mutant-images-cost-nothing"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        with _patched(tokens, "_estimate_messages", _text_only):
            return super().context(request, transport)


def _count_text_only(messages: Sequence[Message], tools: Sequence[Any] = ()) -> TokenCount:
    with _patched(tokens, "_estimate_messages", _text_only):
        return tokens.count_tokens(messages, tools)


class TriggerIgnoresImages(ReferenceRuntime):
    """Decides whether to compact before a turn from a count that leaves images out."""

    name = "mutant-trigger-ignores-images"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with _patched(context_compact, "count_tokens", _count_text_only):
            return super().turn(request)


class DropsOrphansSilently(ReferenceRuntime):
    """Drops an orphaned tool result without warning the user (the action is still listed)."""

    name = "mutant-drops-orphans-silently"

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        out = super().repair(messages, provider, model, options)
        out["warnings"] = [w for w in out["warnings"] if not str(w).startswith("drop_orphan_tool_result")]
        return out


class SkipsDamageSilently(ReferenceRuntime):
    """Skips a transcript's malformed lines without a warning."""

    name = "mutant-skips-damage-silently"

    def load_transcript(self, path: str) -> dict[str, Any]:
        return {**super().load_transcript(path), "warnings": []}


def _exact_text_only(messages: Sequence[Message], profile: ProviderProfile, model: str | None) -> int | None:
    encoding = tokens.encoding_for(profile, model)
    if encoding is None:
        return None
    texts = [b.text for m in messages for b in m.content if isinstance(b, TextBlock)]
    return sum(len(encoding.encode(text, disallowed_special=())) for text in texts)


class ExactCountsTextOnly(ReferenceRuntime):
    """Counts `exact` tokens as the tokenizer's count of the texts alone."""

    name = "mutant-exact-counts-text-only"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        with _patched(context_api, "exact_tokens", _exact_text_only):
            return super().context(request, transport)


@contextlib.contextmanager
def _no_lock(path: Any) -> Iterator[None]:
    yield


class UnlockedStore(ReferenceRuntime):
    """Writes to the store without any lock: concurrent writers overwrite each other's registry."""

    name = "mutant-unlocked-store"

    def store_session(self, backend: str, directory: str, options: dict[str, Any] | None = None) -> Any:
        session = super().store_session(backend, directory, options)
        session.lock = contextlib.nullcontext()
        files = session.store.backend
        if isinstance(files, FileBackend):
            entries = files._registry_entries

            def slow_read() -> list[dict[str, Any]]:
                out = entries()
                time.sleep(0.05)
                return out

            files._lock = _no_lock  # type: ignore[method-assign]
            files._registry_entries = slow_read  # type: ignore[method-assign]
        return session


def _deciding(rule: Callable[..., retry.Decision | None]) -> Any:
    """The reference's retry decision, with `rule` answering first where it returns a decision."""
    decide = retry.decide

    def wrapped(error: ProviderError, attempt: int, *args: Any, **kw: Any) -> retry.Decision:
        return rule(error, attempt, *args, **kw) or decide(error, attempt, *args, **kw)

    return _patched(turn, "decide", wrapped)


def _rate_limits_uncapped(error: ProviderError, attempt: int, *args: Any, **kw: Any) -> retry.Decision | None:
    if error.kind == "rate_limited":
        return retry.RetryAfter(error.retry_after_s or 1.0, "the provider asked to wait")
    return None


def _auth_is_final(error: ProviderError, attempt: int, *args: Any, **kw: Any) -> retry.Decision | None:
    return retry.GiveUp("the key was refused") if error.kind == "auth" else None


class RateLimitsUncapped(ReferenceRuntime):
    """Waits out every 429 the provider sends, whatever max_attempts says."""

    name = "mutant-rate-limits-uncapped"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with _deciding(_rate_limits_uncapped):
            return super().turn(request)


class AuthIsFinal(ReferenceRuntime):
    """Ends the turn on a 401, a second key left unused."""

    name = "mutant-auth-is-final"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with _deciding(_auth_is_final):
            return super().turn(request)


def seed_compress(text: str, threshold: int) -> str:
    """Seed 003's own `compressToolMessages`: a JSON object gains `result` (the omitted note),
    `truncated` and `originalLength`; any other text is cut with `… [truncated N chars]`."""
    if len(text) <= threshold:
        return text
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        parsed["result"] = f"[omitted {len(text)} chars due to provider limits]"
        parsed["truncated"] = True
        parsed["originalLength"] = len(text)
        return json.dumps(parsed, ensure_ascii=False, separators=(",", ":"))
    return f"{text[:threshold]}… [truncated {len(text) - threshold} chars]"


class SeedLetterCompression(ReferenceRuntime):
    """Not a mutant: a runtime that compresses tool results in seed 003's own form."""

    name = "seed-letter-compression"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with _patched(compress, "compress_text", seed_compress):
            return super().turn(request)


class SeedLetterTrim(ReferenceRuntime):
    """Not a mutant: a runtime that trims to the seed's letter with a cap formula of its own. Each
    older turn's cap is derived from max_history_tokens and the history's density (the budget in
    characters shared among the texts of the turns before the recent window), halved for the newest
    older turn and cut to a third for the next: not the reference's numbers, within the seed's bound."""

    name = "seed-letter-trim"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        settings = request.get("settings")
        if request.get("op") == "trim" and isinstance(settings, dict) and not settings.get("caps"):
            messages = request["conversation"]["messages"]
            older = messages[1:-1]  # after the system message, before the last user turn
            base = int(settings["max_history_tokens"]) * 4 // max(1, len(older))
            request = {**request, "settings": {**settings, "caps": [base // 2, base // 3]}}
        return super().context(request, transport)


__all__ = [
    "DropsOrphansSilently",
    "ExactCountsTextOnly",
    "FirstUsage",
    "ImagesCostNothing",
    "NoProxyMode",
    "NoTokenFloor",
    "NoToolTypeRetry",
    "SeedLetterCompression",
    "SeedLetterTrim",
    "SharedThinkSplitter",
    "SkipsDamageSilently",
    "TriggerIgnoresImages",
    "UnlockedStore",
]


class NoFallback(ReferenceRuntime):
    """Seed 002's provider fallback never happens: the fallback providers it is given are ignored, and
    a turn whose provider keeps failing ends in that provider's error."""

    name = "mutant-no-fallback"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        settings = {k: v for k, v in request.settings.items() if k != "fallback"}
        return super().turn(dataclasses.replace(request, settings=settings))


class FallsBackOnAnything(ReferenceRuntime):
    """Falls back on every failure the policy gives up on, a refused request (400) included."""

    name = "mutant-falls-back-on-anything"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        from conformance.model import ErrorKind

        with _patched(turn, "FALLBACK_KINDS", frozenset(typing.get_args(ErrorKind))):
            return super().turn(request)
