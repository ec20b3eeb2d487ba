"""Tool-result rules: failed turns, orphans, duplicates, displaced and missing results.

Which call a result answers is decided by `call_owners` (the nearest earlier assistant message
holding a call with that id); `unique_call_ids` runs first so that, here, call ids are unique.
"""

from __future__ import annotations

from conformance.model import AssistantMessage, Message, TextBlock, ToolResultMessage
from conformance.runtime.repair.base import Action, Loss, RepairContext, call_owners, tool_calls

MISSING_RESULT_TEXT = "No result was recorded for this tool call: the conversation continued before the tool answered."


def _failed(message: AssistantMessage) -> bool:
    return message.stop_reason in ("error", "aborted") or message.error is not None


def drop_failed_turns(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Remove assistant turns that ended in error or were aborted, together with their results."""
    owners = call_owners(messages)
    failed = {i for i, m in enumerate(messages) if isinstance(m, AssistantMessage) and _failed(m)}
    out: list[Message] = []
    actions: list[Action] = []
    for i, message in enumerate(messages):
        if i in failed:
            assert isinstance(message, AssistantMessage)
            why = message.error.kind if message.error is not None else message.stop_reason
            actions.append(Loss("drop_failed_turn", i, f"assistant turn ended with {why}; removed"))
        elif isinstance(message, ToolResultMessage) and owners.get(i) in failed:
            actions.append(
                Loss(
                    "drop_failed_turn",
                    i,
                    f"result for {message.tool_call_id!r} belongs to the failed turn at {owners[i]}; removed",
                )
            )
        else:
            out.append(message)
    return out, actions


def drop_orphan_tool_results(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Drop tool results whose call does not exist in an earlier assistant message."""
    owners = call_owners(messages)
    out: list[Message] = []
    actions: list[Action] = []
    for i, message in enumerate(messages):
        if isinstance(message, ToolResultMessage) and owners.get(i) is None:
            actions.append(
                Loss(
                    "drop_orphan_tool_result",
                    i,
                    f"no tool call with id {message.tool_call_id!r}; removed",
                )
            )
            continue
        out.append(message)
    return out, actions


def dedupe_tool_results(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Keep one result per call id: the first non-error result, else the first result."""
    groups: dict[str, list[int]] = {}
    for i, message in enumerate(messages):
        if isinstance(message, ToolResultMessage):
            groups.setdefault(message.tool_call_id, []).append(i)
    drop: dict[int, str] = {}
    for call_id, indices in groups.items():
        if len(indices) < 2:
            continue
        ok = [i for i in indices if not _is_error(messages[i])]
        keep = ok[0] if ok else indices[0]
        why = "the first non-error result" if ok else "the first result (all are errors)"
        for i in indices:
            if i != keep:
                drop[i] = f"duplicate result for {call_id!r}; kept the one at {keep} ({why})"
    actions: list[Action] = [Loss("dedupe_tool_results", i, detail) for i, detail in sorted(drop.items())]
    return [m for i, m in enumerate(messages) if i not in drop], actions


def _is_error(message: Message) -> bool:
    return isinstance(message, ToolResultMessage) and message.is_error


def place_tool_results(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Move results that are not right after their calling assistant message into that place.

    Results already in the run right after their call keep their order; moved ones follow them.
    """
    owners = call_owners(messages)
    in_place: set[int] = set()
    for i, message in enumerate(messages):
        if not isinstance(message, AssistantMessage):
            continue
        j = i + 1
        while j < len(messages) and isinstance(messages[j], ToolResultMessage):
            if owners.get(j) == i:
                in_place.add(j)
            j += 1
    by_owner: dict[int, list[int]] = {}
    for j, owner in owners.items():
        if owner is not None:
            by_owner.setdefault(owner, []).append(j)
    out: list[Message] = []
    actions: list[Action] = []
    for i, message in enumerate(messages):
        if isinstance(message, ToolResultMessage) and owners.get(i) is not None:
            continue
        out.append(message)
        results = by_owner.get(i, [])
        for j in [j for j in results if j in in_place] + [j for j in results if j not in in_place]:
            if j not in in_place:
                actions.append(
                    Action("place_tool_result", j, f"moved result for its call in the assistant turn at {i}")
                )
            out.append(messages[j])
    return out, actions


def synthesize_missing_results(messages: list[Message], ctx: RepairContext) -> tuple[list[Message], list[Action]]:
    """Give a call that has no result before the next user or assistant turn an error result.

    The result goes right after the calling assistant message, after the results it already has.
    Calls in the last assistant turn with nothing after their results are pending, not missing,
    unless the transcript is about to be sent (`answer_pending`): every provider that pairs calls
    with results rejects a request that ends before a call's result.
    """
    out: list[Message] = []
    actions: list[Action] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        out.append(message)
        i += 1
        if not isinstance(message, AssistantMessage):
            continue
        caller = i - 1
        answered: set[str] = set()
        while i < len(messages) and isinstance(messages[i], ToolResultMessage):
            result = messages[i]
            assert isinstance(result, ToolResultMessage)
            answered.add(result.tool_call_id)
            out.append(result)
            i += 1
        if i >= len(messages) and not ctx.options.answer_pending:
            break
        why = "the request ends before it" if i >= len(messages) else "the conversation moved on"
        for call in tool_calls(message):
            if call.id not in answered:
                actions.append(
                    Action(
                        "synthesize_missing_result",
                        caller,
                        f"no result for call {call.id!r} ({why}); error result added",
                    )
                )
                out.append(
                    ToolResultMessage(
                        tool_call_id=call.id,
                        tool_name=call.name,
                        content=[TextBlock(text=MISSING_RESULT_TEXT)],
                        is_error=True,
                    )
                )
    return out, actions
