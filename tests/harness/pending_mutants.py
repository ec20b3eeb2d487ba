"""Runtimes with one deliberate mistake about calls left open in the last assistant turn."""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs import WireRequest, codec_for
from conformance.model import Conversation
from conformance.runtime.prepare import prepare
from conformance.runtime.reference import ReferenceRuntime


class SendsPendingCalls(ReferenceRuntime):
    """Sends the conversation as it stands: a call without a result stays open in the request."""

    name = "mutant-sends-pending-calls"

    def wire_request(self, conversation: Conversation, profile: ProviderProfile) -> WireRequest:
        return codec_for(profile).encode(prepare(conversation, profile, answer_pending=False).conversation, profile)


class DropsPendingCalls(ReferenceRuntime):
    """Makes the request valid by dropping the calls of the last assistant turn that have no result."""

    name = "mutant-drops-pending-calls"

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        messages = list(conversation.get("messages", []))
        answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool_result"}
        last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
        if last is not None and isinstance(messages[last].get("content"), list):
            content = [b for b in messages[last]["content"] if b.get("type") != "tool_call" or b.get("id") in answered]
            messages[last] = {**messages[last], "content": content}
        return super().encode({**conversation, "messages": messages}, provider)
