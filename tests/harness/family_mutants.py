"""Mutant runtimes for the rows of the bug families a runtime under test slips through in whole
(stream usage merged field by field, signatures bound to the model that made them): the reference
with one realistic bug each, planted in the capability its row judges."""

from __future__ import annotations

from typing import Any
from unittest import mock

from conformance.codecs.anthropic import stream as anthropic_stream
from conformance.model import AssistantMessage
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.repair import thinking
from conformance.runtime.repair.base import RepairContext


def _last_report(earlier: Any, later: Any) -> dict[str, Any]:
    return dict(later)


class UsageLastReportWins(ReferenceRuntime):
    """Takes a stream's last usage report as the whole usage: an Anthropic `message_delta` that
    carries only `output_tokens` leaves the input and cache counts at 0."""

    name = "mutant-usage-last-report-wins"

    def decode(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        with mock.patch.object(anthropic_stream, "merge_usage", _last_report):
            return super().decode(*args, **kwargs)


def _same_provider(message: AssistantMessage, ctx: RepairContext) -> bool:
    return message.provider is None or message.provider == ctx.profile.name


class SignaturesFollowTheProvider(ReferenceRuntime):
    """Sends signed thinking and part signatures back to any model of the provider that signed
    them, as if a signature were bound to the provider rather than to the model."""

    name = "mutant-signatures-follow-the-provider"

    def repair(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        with mock.patch.object(thinking, "same_origin", _same_provider):
            return super().repair(*args, **kwargs)
