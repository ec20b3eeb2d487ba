"""Turn-order rules: the first turn is a user turn, and same-role neighbours are resolved.

First turn: when the first non-system message is not a user message, a placeholder user turn is
inserted before it. We insert rather than drop: a leading assistant turn may hold tool calls whose
results follow, and dropping it would also drop them (loss); the placeholder adds a few words only.

Same-role neighbours (profiles with ``alternating_roles`` or ``strict_alternation``): tool results
count as the user side, so "results, then user text" is fine (codecs send them as one user turn
with the results first). Two user messages, or two assistant messages, next to each other are
merged when both are text-only; otherwise (an image, a tool call, thinking) a placeholder turn of
the other role is put between them. Tool results are never merged. A merged assistant message
keeps the first message's provider, model and usage, and the second one's stop reason.
"""

from __future__ import annotations

from conformance.model import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextBlock,
    ToolResultMessage,
    UserMessage,
)
from conformance.runtime.repair.base import Action, RepairContext

PLACEHOLDER_USER_TEXT = "(continued)"
PLACEHOLDER_ASSISTANT_TEXT = "(no reply)"


def first_turn_user(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    for i, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            continue
        if isinstance(message, UserMessage):
            return messages, []
        placeholder = UserMessage(content=[TextBlock(text=PLACEHOLDER_USER_TEXT)])
        action = Action("first_turn_user", i, f"{message.role} message came first; placeholder user turn inserted")
        return [*messages[:i], placeholder, *messages[i:]], [action]
    return messages, []


def _text_only(message: Message) -> bool:
    return all(isinstance(b, TextBlock) for b in message.content)


def _merge(first: Message, second: Message, *, one_text: bool = False) -> Message:
    """`second` appended to `first`; `one_text`: their texts joined into one block by a blank line
    (Gemini-proxy mode, where an assistant turn is one plain text)."""
    content = [*first.content, *second.content]
    if one_text:
        texts = [b.text for b in content if isinstance(b, TextBlock) and b.text]
        content = [TextBlock(text="\n\n".join(texts))]
    update: dict[str, object] = {"content": content}
    if isinstance(first, AssistantMessage) and isinstance(second, AssistantMessage):
        update["stop_reason"] = second.stop_reason
        update["raw_stop_reason"] = second.raw_stop_reason
    return first.model_copy(update=update)


def alternate_roles(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    if not (ctx.profile.alternating_roles or ctx.profile.strict_alternation):
        return messages, []
    out: list[Message] = []
    actions: list[Action] = []
    last: int | None = None
    for i, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            out.append(message)
            continue
        prev = out[last] if last is not None else None
        same = prev is not None and not isinstance(message, ToolResultMessage) and type(prev) is type(message)
        if prev is not None and last is not None and same:
            if _text_only(prev) and _text_only(message):
                one_text = ctx.options.gemini_proxy and isinstance(message, AssistantMessage)
                out[last] = _merge(prev, message, one_text=one_text)
                actions.append(Action("merge_same_role", i, f"text-only {message.role} message merged into previous"))
                continue
            bridge: Message = (
                UserMessage(content=[TextBlock(text=PLACEHOLDER_USER_TEXT)])
                if isinstance(message, AssistantMessage)
                else AssistantMessage(content=[TextBlock(text=PLACEHOLDER_ASSISTANT_TEXT)])
            )
            out.append(bridge)
            actions.append(
                Action(
                    "bridge_same_role",
                    i,
                    f"placeholder {bridge.role} turn put between two {message.role} turns",
                )
            )
        out.append(message)
        last = len(out) - 1
    return out, actions
