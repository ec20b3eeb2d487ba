"""Pieces shared by the JSON and the stream decoder: content blocks, usage, stop reasons.

Block types with a canonical form are `text`, `thinking`, `redacted_thinking` and `tool_use`, and
the server-side blocks of `SERVER_BLOCKS` (`server_tool_use`, `web_search_tool_result`,
`mcp_tool_use`, code execution results, `compaction`, …), which describe work the provider did
itself: each is a `server_tool` block holding the wire block whole (`id`: its `id`, or the
`tool_use_id` of a result), sent back unchanged. Other block types are skipped. Text `citations`
are not part of the contract.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.codecs.anthropic.vocabulary import DIALECT, STOP_REASONS, is_server_block
from conformance.codecs.builder import MessageBuilder
from conformance.exceptions import WireFormatError
from conformance.jsonvalue import MAX_DEPTH, depth
from conformance.model import ServerToolBlock, Usage

KNOWN_BLOCKS: frozenset[str] = frozenset({"text", "thinking", "redacted_thinking", "tool_use"})


def as_object(value: Any, where: str) -> dict[str, Any]:
    """`value` when it is a JSON object; corrupt input otherwise."""
    if not isinstance(value, dict):
        raise WireFormatError(f"expected a JSON object, got {type(value).__name__}", where=where)
    return value


def _str(block: Mapping[str, Any], key: str) -> str:
    value = block.get(key)
    return value if isinstance(value, str) else ""


def server_block(block: Mapping[str, Any]) -> ServerToolBlock | None:
    """A server-side content block as a `server_tool` block; None when nested too deep to be
    written back as JSON."""
    data = dict(block)
    if depth(data) > MAX_DEPTH:
        return None
    return ServerToolBlock(
        dialect=DIALECT,
        name=_str(block, "type"),
        id=_str(block, "id") or _str(block, "tool_use_id") or None,
        data=data,
    )


def add_block(builder: MessageBuilder, index: int, block: Mapping[str, Any], *, whole: bool) -> bool:
    """Open the part for one content block; False when the block type has no canonical form.

    `whole` is True for a complete block (non-stream body), False for `content_block_start`,
    whose `tool_use.input` is only a placeholder: the input arrives as `input_json_delta`s.
    """
    kind = block.get("type")
    if kind == "text":
        builder.text(index, _str(block, "text"))
    elif kind == "thinking":
        builder.thinking(index, _str(block, "thinking"), signature=_str(block, "signature") or None)
    elif kind == "redacted_thinking":
        builder.redacted_thinking(index, _str(block, "data"))
    elif kind == "tool_use":
        builder.tool_call(
            index,
            id=_str(block, "id") or None,
            name=_str(block, "name") or None,
            arguments=block.get("input", {}) if whole else None,
        )
    elif is_server_block(kind):
        server = server_block(block)
        if server is None:
            return False
        builder.server_tool(index, server)
    else:
        return False
    return True


def _count(raw: Mapping[str, Any], key: str) -> int:
    value = raw.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_of(raw: Mapping[str, Any]) -> Usage:
    """Wire usage → contract usage: cache reads and writes are added to `input_tokens`."""
    details = raw.get("output_tokens_details")
    cache_read = _count(raw, "cache_read_input_tokens")
    cache_write = _count(raw, "cache_creation_input_tokens")
    return Usage(
        input_tokens=_count(raw, "input_tokens") + cache_read + cache_write,
        output_tokens=_count(raw, "output_tokens"),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        reasoning_tokens=_count(details, "thinking_tokens") if isinstance(details, dict) else 0,
    )


def merge_usage(earlier: Mapping[str, Any] | None, later: Mapping[str, Any]) -> dict[str, Any]:
    """Cumulative stream usage: a field present (and not null) in `later` replaces the earlier one."""
    merged = dict(earlier or {})
    merged.update({key: value for key, value in later.items() if value is not None})
    return merged


def set_stop(builder: MessageBuilder, raw: Any) -> None:
    if isinstance(raw, str):
        builder.set_stop(raw, STOP_REASONS.get(raw))
