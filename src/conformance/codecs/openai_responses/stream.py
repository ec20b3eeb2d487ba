"""A Responses SSE stream → `StreamEvent`s and one `AssistantMessage`.

Events are read by their `type` (the `event:` line repeats it). Parts are keyed by output
index (item ids are not unique everywhere: xAI repeats a reasoning item's id), falling back to the
item id when an event has no index:

- `response.output_item.added` opens function calls (id, name and item id come from here: the
  argument events may lack them), reasoning items and built-in tool items (a `server_tool` block
  in its first state, so a cut stream still shows the work that began);
- `response.output_text.delta` / `response.refusal.delta` extend a text part of a message item,
  `response.function_call_arguments.delta` (and `custom_tool_call_input.delta`) a call's
  arguments, `response.reasoning_summary_text.delta` (a blank line between summary parts) and
  `response.reasoning_text.delta` the thinking of a reasoning item;
- `response.output_text.done` / `response.refusal.done` restate a text part whole: what its deltas
  left out is added (`MessageBuilder.complete`), as is what the message's `output_item.done` and
  the final response restate;
- `response.output_item.done` is authoritative: it ends a call, sets the reasoning signature from
  the final `encrypted_content` (the one in `added` may be incomplete), replaces a built-in tool
  item with its final form, and supplies the whole item when its deltas never came;
- `response.completed` / `response.incomplete` / `response.failed` end the stream with usage and
  stop reason (items of the final response that were never streamed are added, and built-in tool
  items take their form in the final response). A final item is matched to the streamed one by
  its id, else by its position: the final `output` need not list every streamed output index;
- an `error` event (either shape) ends the message with the typed error, the partial kept; the
  `response.failed` that usually follows changes nothing.

A stream without a terminal event (a trailing `data: [DONE]` is accepted, not required) ends with
`stream_interrupted`. Every other event type (`response.created`, annotations, built-in tool
progress such as `response.web_search_call.searching`, keep-alives) is skipped.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import orjson

from conformance.capabilities import ProviderProfile
from conformance.codecs.builder import MessageBuilder
from conformance.codecs.openai_responses.decode import apply_response
from conformance.codecs.openai_responses.errors import event_error
from conformance.codecs.openai_responses.items import (
    SUMMARY_SEPARATOR,
    ItemState,
    items_of,
    reasoning_signature,
    text_of,
)
from conformance.codecs.openai_responses.tables import is_builtin_item
from conformance.codecs.sse_stream import SSEStream
from conformance.model import DoneEvent, ErrorEvent, ProviderError, StartEvent

_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_TEXT_DELTAS = frozenset({"response.output_text.delta", "response.refusal.delta"})
_ARGUMENT_DELTAS = frozenset({"response.function_call_arguments.delta", "response.custom_tool_call_input.delta"})
_TEXT_DONE: dict[str, str] = {"response.output_text.done": "text", "response.refusal.done": "refusal"}
"""A text part's end event → the field holding its whole text."""
_TEXT_EVENTS = _TEXT_DELTAS | _TEXT_DONE.keys()
_PART_TEXT: dict[Any, str] = {"output_text": "text", "refusal": "refusal"}
"""A message content part's type → the field holding its text."""
_THINKING_DELTAS = frozenset({"response.reasoning_summary_text.delta", "response.reasoning_text.delta"})


class OpenAIResponsesStream(SSEStream):
    """Per-stream state; one instance per response, never reused."""

    UNFINISHED = "stream ended before response.completed, response.incomplete or response.failed"

    def __init__(self, profile: ProviderProfile, *, events: bool = True) -> None:
        super().__init__(MessageBuilder(provider=profile.name, events=events))
        self._state = ItemState(self._builder)
        self._seen: set[Hashable] = set()
        """Items whose deltas (or whole form) were applied."""
        self._indexes: dict[str, int] = {}
        """Item id → output index, from `output_item.added`."""
        self._ids: dict[int, str] = {}
        """Output index → item id (the inverse of `_indexes`)."""
        self._summary: dict[Hashable, int] = {}
        """Reasoning item → the summary index its last delta belonged to."""

    def _key(self, data: dict[str, Any], item_id: Any) -> Hashable:
        index = data.get("output_index")
        if isinstance(index, int):
            if isinstance(item_id, str):
                self._indexes[item_id] = index
                self._ids[index] = item_id
            return ("item", index)
        if isinstance(item_id, str) and item_id in self._indexes:
            return ("item", self._indexes[item_id])
        return ("item-id", item_id if isinstance(item_id, str) else None)  # never an unhashable value

    def _fail(self, error: ProviderError) -> None:
        self._failed = True
        builder = self._builder
        builder.error = error
        builder.set_stop(builder.raw_stop_reason, "error")
        builder.emit(lambda: ErrorEvent(error=error, partial=builder.build()))

    def _frame(self, event: str, raw: str, final: bool) -> None:
        self._frames += 1
        if self._failed or self._finished or raw == "[DONE]":
            return
        if not self._started:
            self._started = True
            self._builder.emit(StartEvent)
        try:
            data: Any = orjson.loads(raw)
        except orjson.JSONDecodeError:
            if not final:  # the last frame of a cut stream is not corrupt data: finish() reports the cut
                self._fail(event_error({"code": "server_error", "message": f"SSE event {self._frames} is not JSON"}))
            return
        if data.__class__ is not dict:
            return
        kind = data.get("type")
        kind = kind if isinstance(kind, str) else event
        if kind in _TEXT_EVENTS:
            self._text(data, kind)
        elif kind in _ARGUMENT_DELTAS:
            key = self._key(data, data.get("item_id"))
            self._seen.add(key)
            self._builder.tool_call(key, arguments_delta=text_of(data.get("delta")))
        elif kind in _THINKING_DELTAS:
            self._thinking(data, kind)
        elif kind == "response.output_item.added":
            self._added(data)
        elif kind == "response.output_item.done":
            self._done_item(data)
        elif kind in _TERMINAL:
            self._terminal(data, kind)
        elif kind == "error":
            self._fail(event_error(data))
        elif kind in ("response.created", "response.in_progress", "response.queued"):
            response = data.get("response")
            if isinstance(response, dict) and isinstance(response.get("model"), str):
                self._builder.model = response["model"]

    def _text(self, data: dict[str, Any], kind: str) -> None:
        key = self._key(data, data.get("item_id"))
        index = data.get("content_index", 0)
        part = (key, index if isinstance(index, int) else 0)
        field = _TEXT_DONE.get(kind)
        if field is not None:  # a part whose deltas never came is left to its item's whole form
            self._builder.complete(part, "text", text_of(data.get(field)))
            return
        self._seen.add(key)
        item_id = data.get("item_id") if isinstance(data.get("item_id"), str) else None
        if kind == "response.refusal.delta":
            self._state.refused = True
        delta = text_of(data.get("delta"))
        if not self._builder.append(part, "text", delta):
            self._builder.text(part, delta, signature=item_id)

    def _thinking(self, data: dict[str, Any], kind: str) -> None:
        key = self._key(data, data.get("item_id"))
        self._seen.add(key)
        delta = text_of(data.get("delta"))
        index = data.get("summary_index" if kind == "response.reasoning_summary_text.delta" else "content_index", 0)
        index = index if isinstance(index, int) else 0
        last = self._summary.get(key)
        if last is not None and index != last and kind == "response.reasoning_summary_text.delta":
            delta = SUMMARY_SEPARATOR + delta
        self._summary[key] = index
        self._builder.thinking(key, delta)

    def _added(self, data: dict[str, Any]) -> None:
        item = data.get("item")
        if not isinstance(item, dict):
            return
        key = self._key(data, item.get("id"))
        if item.get("type") in ("function_call", "custom_tool_call"):
            self._state.call(key, item)
        elif item.get("type") == "reasoning":
            self._builder.thinking(key, "", signature=reasoning_signature(item))
        elif is_builtin_item(item.get("type")):
            self._state.server_tool(key, item)

    def _done_item(self, data: dict[str, Any]) -> None:
        item = data.get("item")
        if not isinstance(item, dict):
            return
        key = self._key(data, item.get("id"))
        kind = item.get("type")
        if key not in self._seen:
            self._seen.add(key)
            self._state.item(key, item)
        elif kind in ("function_call", "custom_tool_call"):
            self._state.call(key, item)
            self._builder.close(key)
        elif kind == "reasoning":
            self._builder.thinking(key, "", signature=reasoning_signature(item))
        elif kind == "message":
            self._complete_message(key, item)
        elif is_builtin_item(kind):
            self._state.server_tool(key, item)

    def _complete_message(self, key: Hashable, item: dict[str, Any]) -> None:
        """Bring the streamed text parts of a message item up to its whole form."""
        for n, part in enumerate(items_of(item.get("content"))):
            field = _PART_TEXT.get(part.get("type")) if isinstance(part, dict) else None
            if field is not None:
                self._builder.complete((key, n), "text", text_of(part.get(field)))

    def _final_key(self, n: int, item: dict[str, Any]) -> Hashable:
        """The key of the final response's `output[n]`: the streamed item of the same id (at
        whatever output index it came), else position `n` (OpenRouter's final items carry ids other
        than the streamed ones: `rs_tmp_…` made anew)."""
        item_id = item.get("id")
        if not isinstance(item_id, str) or self._ids.get(n) == item_id:
            return ("item", n)
        return ("item", self._indexes.get(item_id, n))

    def _terminal(self, data: dict[str, Any], kind: str) -> None:
        response = data.get("response")
        if not isinstance(response, dict):
            response = {"status": kind.removeprefix("response.")}
        for n, item in enumerate(items_of(response.get("output"))):
            if isinstance(item, dict):
                key = self._final_key(n, item)
                if key not in self._seen or is_builtin_item(item.get("type")):
                    self._seen.add(key)
                    self._state.item(key, item)
                elif item.get("type") == "message":
                    self._complete_message(key, item)
        apply_response(self._state, response, items=False)
        builder = self._builder
        if builder.error is not None:
            error = builder.error
            self._failed = True
            builder.emit(lambda: ErrorEvent(error=error, partial=builder.build()))
            return
        self._finished = True
        builder.emit(lambda: DoneEvent(message=builder.build()))
