"""Output items → builder calls, shared by the JSON and the stream decoders; usage; stop reason.

Item kinds with a canonical form:

- `message`: each `output_text` part is a text block, each `refusal` part a text block that makes
  the stop reason `refusal`; the item's `id` (`msg_…`) is the text block's `signature`, so the
  text goes back as the same item;
- `function_call` (and `custom_tool_call`): a tool call whose `id` is the `call_id` (what a
  `function_call_output` answers) and whose `signature` is the item `id` (`fc_…`);
- `reasoning`: one thinking block; its text is the summary parts joined by a blank line (the
  `reasoning_text` content when there is no summary), its `signature` the item's `id` and
  `encrypted_content` as compact JSON (see `reasoning_signature`), so it can be sent back.

- a built-in tool item (`BUILTIN_TOOL_ITEMS`: `web_search_call`, `mcp_call`, …): a `server_tool`
  block holding the item whole (see `server_tool_block`), so it can go back as it came.

Any other item type is skipped.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import orjson

from conformance.codecs.builder import MessageBuilder
from conformance.codecs.openai_responses.tables import DIALECT, INCOMPLETE_REASONS, STATUS_STOPS, is_builtin_item
from conformance.jsonvalue import MAX_DEPTH, depth
from conformance.model import ServerToolBlock, Usage

SUMMARY_SEPARATOR = "\n\n"
"""Between two summary parts of one reasoning item."""


def items_of(value: Any) -> list[Any]:
    """`value` when it is a list, else nothing (a field of the wrong type is data to skip, not a crash)."""
    return value if isinstance(value, list) else []


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def reasoning_signature(item: dict[str, Any]) -> str | None:
    """`{"id": "rs_…", "encrypted_content": "…"}` (keys present only when the item has them),
    compact JSON; None when the item has neither."""
    sig = {key: item[key] for key in ("id", "encrypted_content") if isinstance(item.get(key), str) and item[key]}
    return orjson.dumps(sig).decode() if sig else None


def parse_reasoning_signature(signature: str) -> dict[str, str]:
    """The reasoning item fields a thinking block's signature holds (see `reasoning_signature`); a
    signature that is not such JSON is taken whole as the `encrypted_content` (an item without an
    id, as xAI sends them back)."""
    try:
        value = orjson.loads(signature)
    except orjson.JSONDecodeError:
        value = None
    if not isinstance(value, dict) or not value or not all(isinstance(v, str) for v in value.values()):
        return {"encrypted_content": signature}
    return {k: v for k, v in value.items() if k in ("id", "encrypted_content")}


def reasoning_text(item: dict[str, Any]) -> str:
    summary = [text_of(p.get("text")) for p in items_of(item.get("summary")) if isinstance(p, dict)]
    if any(summary):
        return SUMMARY_SEPARATOR.join(summary)
    content = item.get("content")
    parts = content if isinstance(content, list) else []
    return "".join(text_of(p.get("text")) for p in parts if isinstance(p, dict))


def server_tool_block(item: dict[str, Any]) -> ServerToolBlock | None:
    """A built-in tool item as a `server_tool` block: `name` is its `type`, `id` and `status` its
    own, `data` the item itself. None for an item nested too deep to be written back as JSON."""
    if depth(item) > MAX_DEPTH:
        return None
    item_id, status = item.get("id"), item.get("status")
    return ServerToolBlock(
        dialect=DIALECT,
        name=text_of(item.get("type")),
        id=item_id if isinstance(item_id, str) else None,
        status=status if isinstance(status, str) else None,
        data=item,
    )


class ItemState:
    """Per-response state: which items were seen, whether the answer was a refusal."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.refused = False

    def item(self, key: Hashable, item: dict[str, Any]) -> None:
        """A whole output item (a JSON body's `output[i]`, or `output_item.done` of an item whose
        deltas never came)."""
        kind = item.get("type")
        if kind == "message":
            self.message(key, item)
        elif kind in ("function_call", "custom_tool_call"):
            args = item.get("arguments") if kind == "function_call" else item.get("input")
            self.call(key, item)
            if isinstance(args, str) and args:
                self.builder.tool_call(key, arguments_delta=args)
            self.builder.close(key)
        elif kind == "reasoning":
            self.builder.thinking(key, reasoning_text(item), signature=reasoning_signature(item))
        elif is_builtin_item(kind):
            self.server_tool(key, item)

    def server_tool(self, key: Hashable, item: dict[str, Any]) -> None:
        """Open (or bring up to date) the server-tool block of a built-in tool item."""
        block = server_tool_block(item)
        if block is not None:
            self.builder.server_tool(key, block)

    def call(self, key: Hashable, item: dict[str, Any]) -> None:
        call_id = item.get("call_id")
        item_id = item.get("id")
        self.builder.tool_call(
            key,
            id=call_id if isinstance(call_id, str) else None,
            name=text_of(item.get("name")) or None,
            signature=item_id if isinstance(item_id, str) and item_id else None,
        )

    def message(self, key: Hashable, item: dict[str, Any]) -> None:
        item_id = item.get("id") if isinstance(item.get("id"), str) else None
        for n, part in enumerate(items_of(item.get("content"))):
            if isinstance(part, dict):
                self.part((key, n), part, item_id)

    def part(self, key: Hashable, part: dict[str, Any], item_id: str | None) -> None:
        if part.get("type") == "output_text":
            self.builder.text(key, text_of(part.get("text")), signature=item_id)
        elif part.get("type") == "refusal":
            self.refused = True
            self.builder.text(key, text_of(part.get("refusal")), signature=item_id)


def usage_of(response: dict[str, Any]) -> Usage | None:
    usage = response.get("usage")
    if not isinstance(usage, dict):
        return None

    def num(obj: Any, key: str) -> int:
        value = obj.get(key) if isinstance(obj, dict) else None
        return value if isinstance(value, int) else 0

    details = usage.get("input_tokens_details")
    return Usage(
        input_tokens=num(usage, "input_tokens"),
        output_tokens=num(usage, "output_tokens"),
        cache_read_tokens=num(details, "cached_tokens"),
        cache_write_tokens=num(details, "cache_write_tokens"),
        reasoning_tokens=num(usage.get("output_tokens_details"), "reasoning_tokens"),
    )


def set_stop(state: ItemState, response: dict[str, Any]) -> None:
    """`status` (+ `incomplete_details.reason`) → stop reason; raw: the reason, else the status."""
    status = text_of(response.get("status"))
    normalized = STATUS_STOPS.get(status)
    if normalized is None:
        return
    raw = status
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = text_of(details.get("reason")) if isinstance(details, dict) else ""
        if reason:
            raw = reason
            normalized = INCOMPLETE_REASONS.get(reason, "length")
    elif status == "completed":
        if state.builder.has_tool_calls():
            normalized = "tool_use"
        elif state.refused:
            normalized = "refusal"
    state.builder.set_stop(raw, normalized)
