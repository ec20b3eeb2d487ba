"""Canonical model: the normalized form every codec produces and every check compares.

No I/O and no provider names here. The JSON shape is the public contract in
docs/normalized-form.md.
"""

from conformance.model.blocks import (
    AssistantBlock,
    ImageBlock,
    RedactedThinkingBlock,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    UserBlock,
    UserMessageBlock,
)
from conformance.model.conversation import Conversation, Options, ToolSpec
from conformance.model.errors import ERROR_KINDS, ErrorKind, ProviderError
from conformance.model.events import (
    DoneEvent,
    ErrorEvent,
    StartEvent,
    StreamEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from conformance.model.messages import (
    MESSAGE_ADAPTER,
    MESSAGES_ADAPTER,
    AssistantMessage,
    Message,
    Source,
    StopReason,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    dump,
    parse_message,
    text_of,
)
from conformance.model.outcome import Outcome
from conformance.model.usage import Usage

__all__ = [
    "ERROR_KINDS",
    "MESSAGES_ADAPTER",
    "MESSAGE_ADAPTER",
    "AssistantBlock",
    "AssistantMessage",
    "Conversation",
    "DoneEvent",
    "ErrorEvent",
    "ErrorKind",
    "ImageBlock",
    "Message",
    "Options",
    "Outcome",
    "ProviderError",
    "RedactedThinkingBlock",
    "ServerToolBlock",
    "Source",
    "StartEvent",
    "StopReason",
    "StreamEvent",
    "SystemMessage",
    "TextBlock",
    "TextDeltaEvent",
    "ThinkingBlock",
    "ThinkingDeltaEvent",
    "ToolCallBlock",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "ToolResultMessage",
    "ToolSpec",
    "Usage",
    "UserBlock",
    "UserMessage",
    "UserMessageBlock",
    "dump",
    "parse_message",
    "text_of",
]
