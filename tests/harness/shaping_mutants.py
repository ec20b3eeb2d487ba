"""Mutant runtimes for the history-shaping guard rows (seeds 001 and 003): the reference with one
realistic bug each, planted in the capability its row judges."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from conformance.model import ImageBlock, Message, SystemMessage, UserMessage
from conformance.runtime import compress
from conformance.runtime.protocol import TurnRequest
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.repair import engine
from conformance.runtime.repair.base import Action, RepairContext, Rule
from conformance.runtime.repair.proxy import gemini_proxy

FIXED_CAP = 256
"""The one per-age cap a runtime without derived caps falls back on (characters)."""


class FixedTrimCaps(ReferenceRuntime):
    """Trims older turns to one fixed cap when the user sets none, instead of deriving the caps from
    the room `max_history_tokens` leaves and the history's density."""

    name = "mutant-fixed-trim-caps"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        settings = request.get("settings")
        if request.get("op") == "trim" and isinstance(settings, dict) and not settings.get("caps"):
            request = {**request, "settings": {**settings, "caps": [FIXED_CAP]}}
        return super().context(request, transport)


@contextmanager
def _proxy_rule(wrap: Callable[[Rule], Rule]) -> Iterator[None]:
    """The reference's repair with its Gemini-proxy rule replaced by `wrap(rule)` for one call."""
    rules = tuple(wrap(rule) if rule is gemini_proxy else rule for rule in engine.RULES)
    with mock.patch.object(engine, "RULES", rules):
        yield


def _keeps_system(rule: Rule) -> Rule:
    def keep(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
        out, actions = rule(messages, ctx)
        kept = {i for i, m in enumerate(messages) if isinstance(m, SystemMessage)}
        return [messages[i] if i in kept else m for i, m in enumerate(out)], [a for a in actions if a.index not in kept]

    return keep


def _strips_user_images(rule: Rule) -> Rule:
    def strip(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
        out, actions = rule(messages, ctx)
        if not ctx.options.gemini_proxy:
            return out, actions
        return [
            m.model_copy(update={"content": [b for b in m.content if not isinstance(b, ImageBlock)]})
            if isinstance(m, UserMessage)
            else m
            for m in out
        ], actions

    return strip


class ProxyKeepsSystemStructured(ReferenceRuntime):
    """Proxy mode flattens assistant turns and tool results but leaves system messages as they are."""

    name = "mutant-proxy-keeps-system-structured"

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        with _proxy_rule(_keeps_system):
            return super().repair(messages, provider, model, options)


class ProxyStripsUserImages(ReferenceRuntime):
    """Proxy mode sends text only, user turns included: a user's images are dropped."""

    name = "mutant-proxy-strips-user-images"

    def repair(
        self, messages: list[dict[str, Any]], provider: str, model: str | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        with _proxy_rule(_strips_user_images):
            return super().repair(messages, provider, model, options)


def _cut_mid_text(text: str, threshold: int) -> str:
    return text if len(text) <= threshold else f"{text[:threshold]}[truncated {len(text) - threshold} chars]"


class CompressionCutsJson(ReferenceRuntime):
    """Compresses every oversized tool result by cutting its text, JSON included (left unparseable)."""

    name = "mutant-compression-cuts-json"

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        with mock.patch.object(compress, "compress_text", _cut_mid_text):
            return super().turn(request)
