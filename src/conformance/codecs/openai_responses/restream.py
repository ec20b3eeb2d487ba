"""A Responses API answer (`response`) as the stream a `stream: true` request gets.

https://platform.openai.com/docs/api-reference/responses-streaming: `response.created` and
`response.in_progress` (the response with no output yet), then per output item
`response.output_item.added` (the item in its first state), its parts and deltas — a message's
`response.content_part.added`, `response.output_text.delta` (or `response.refusal.delta`), the
`.done` restating the text, `response.content_part.done`; a function call's
`response.function_call_arguments.delta` and `.done`; a reasoning item's
`response.reasoning_summary_part.added`, `response.reasoning_summary_text.delta` / `.done`,
`response.reasoning_summary_part.done` — and `response.output_item.done` with the whole item;
then `response.completed`, `response.incomplete` or `response.failed` (by the response's
`status`) carrying the whole response. Every event has its `sequence_number`; no `[DONE]`.
An item of another kind (a built-in tool's call) is added and done whole.
"""

from __future__ import annotations

from typing import Any

from conformance.codecs.restream import sse

_TERMINAL = {"completed": "response.completed", "incomplete": "response.incomplete", "failed": "response.failed"}
_PART_TEXT = {"output_text": ("text", "response.output_text"), "refusal": ("refusal", "response.refusal")}
"""A message content part's type → the field holding its text and its event prefix."""


class _Events:
    def __init__(self) -> None:
        self.out: list[tuple[str | None, object]] = []

    def add(self, kind: str, **fields: Any) -> None:
        self.out.append((kind, {"type": kind, "sequence_number": len(self.out), **fields}))


def _message(ev: _Events, index: int, item: dict[str, Any]) -> None:
    where = {"item_id": item.get("id"), "output_index": index}
    for j, part in enumerate(item.get("content") or []):
        field, prefix = _PART_TEXT.get(part.get("type"), (None, ""))
        if field is None:
            ev.add("response.content_part.added", **where, content_index=j, part=part)
            ev.add("response.content_part.done", **where, content_index=j, part=part)
            continue
        text = part.get(field) or ""
        first = {**part, field: ""}
        if "annotations" in part:
            first["annotations"] = []
        ev.add("response.content_part.added", **where, content_index=j, part=first)
        if text:
            ev.add(f"{prefix}.delta", **where, content_index=j, delta=text)
        ev.add(f"{prefix}.done", **where, content_index=j, **{field: text})
        ev.add("response.content_part.done", **where, content_index=j, part=part)


def _reasoning(ev: _Events, index: int, item: dict[str, Any]) -> None:
    where = {"item_id": item.get("id"), "output_index": index}
    for j, part in enumerate(item.get("summary") or []):
        text = part.get("text") or ""
        ev.add("response.reasoning_summary_part.added", **where, summary_index=j, part={**part, "text": ""})
        if text:
            ev.add("response.reasoning_summary_text.delta", **where, summary_index=j, delta=text)
        ev.add("response.reasoning_summary_text.done", **where, summary_index=j, text=text)
        ev.add("response.reasoning_summary_part.done", **where, summary_index=j, part=part)
    for j, part in enumerate(item.get("content") or []):
        text = part.get("text") or ""
        if part.get("type") == "reasoning_text" and text:
            ev.add("response.reasoning_text.delta", **where, content_index=j, delta=text)
            ev.add("response.reasoning_text.done", **where, content_index=j, text=text)


def _first_state(item: dict[str, Any]) -> dict[str, Any]:
    """The item as `response.output_item.added` shows it: no content, summary or arguments yet."""
    kind = item.get("type")
    first = {**item, "status": "in_progress"} if "status" in item else dict(item)
    if kind == "message":
        first["content"] = []
    elif kind == "reasoning":
        first["summary"] = []
        first.pop("content", None)
    elif kind == "function_call":
        first["arguments"] = ""
    return first


def restream(data: Any, request: Any) -> bytes:
    """The SSE body of the same answer (`request`: the body that asked for the stream)."""
    ev = _Events()
    opening = {**data, "status": "in_progress", "output": [], "usage": None}
    ev.add("response.created", response=opening)
    ev.add("response.in_progress", response=opening)
    for index, item in enumerate(data.get("output") or []):
        kind = item.get("type")
        ev.add("response.output_item.added", output_index=index, item=_first_state(item))
        if kind == "message":
            _message(ev, index, item)
        elif kind == "reasoning":
            _reasoning(ev, index, item)
        elif kind == "function_call":
            arguments = item.get("arguments") or ""
            where = {"item_id": item.get("id"), "output_index": index}
            if arguments:
                ev.add("response.function_call_arguments.delta", **where, delta=arguments)
            ev.add("response.function_call_arguments.done", **where, arguments=arguments)
        ev.add("response.output_item.done", output_index=index, item=item)
    ev.add(_TERMINAL.get(str(data.get("status")), "response.completed"), response=data)
    return sse(ev.out)


__all__ = ["restream"]
