"""A transcript that ends with an assistant message asks the model to continue that text (a
prefill). Anthropic rejects a prefill whose text ends with whitespace ("final assistant content
cannot end with trailing whitespace"); profiles without ``prefill_trailing_whitespace`` get the
trailing whitespace of that last text block removed. Earlier assistant messages are history and
are sent as they are, whitespace included.
"""

from __future__ import annotations

from conformance.model import AssistantMessage, Message, TextBlock
from conformance.runtime.repair.base import Action, RepairContext


def trim_prefill(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    if ctx.profile.prefill_trailing_whitespace or not messages:
        return messages, []
    last = messages[-1]
    if not isinstance(last, AssistantMessage) or not last.content:
        return messages, []
    block = last.content[-1]
    if not isinstance(block, TextBlock) or block.signature is not None or block.text == block.text.rstrip():
        return messages, []
    trimmed = block.model_copy(update={"text": block.text.rstrip()})
    message = last.model_copy(update={"content": [*last.content[:-1], trimmed]})
    action = Action("trim_prefill", len(messages) - 1, "trailing whitespace removed from the final assistant text")
    return [*messages[:-1], message], [action]
