"""Compress oversized tool results before a retry (a payload the provider rejected as too large).

Every tool result whose text is longer than `threshold` characters is shortened:

- JSON results keep their structure: the longest string values are replaced by
  `"[omitted N chars]"` until the result fits, and the top-level object gains
  `"truncated": true` and `"originalLength": N` (a JSON array is wrapped as `{"items": …}` first);
- plain text is cut to `threshold` characters followed by `[truncated N chars]`.

Pure and deterministic; returns the new messages and how many results were compressed.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.model import Message, TextBlock, ToolResultMessage

DEFAULT_THRESHOLD = 512


def _strings(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[int, tuple[Any, ...]]]:
    if isinstance(node, str):
        return [(len(node), path)]
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in _strings(v, (*path, k))]
    if isinstance(node, list):
        return [s for i, v in enumerate(node) for s in _strings(v, (*path, i))]
    return []


def _set(node: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def compress_text(text: str, threshold: int) -> str:
    if len(text) <= threshold:
        return text
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict | list):
        obj: dict[str, Any] = value if isinstance(value, dict) else {"items": value}
        for length, path in sorted(_strings(obj), key=lambda s: -s[0]):
            if len(_dumps(obj)) + 40 <= threshold or length <= 32:
                break
            _set(obj, path, f"[omitted {length} chars]")
        obj["truncated"] = True
        obj["originalLength"] = len(text)
        return _dumps(obj)
    return f"{text[:threshold]}[truncated {len(text) - threshold} chars]"


def compress_tool_results(messages: list[Message], threshold: int = DEFAULT_THRESHOLD) -> tuple[list[Message], int]:
    out: list[Message] = []
    count = 0
    for message in messages:
        if isinstance(message, ToolResultMessage):
            text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
            if len(text) > threshold:
                count += 1
                others = [b for b in message.content if not isinstance(b, TextBlock)]
                message = message.model_copy(
                    update={"content": [TextBlock(text=compress_text(text, threshold)), *others]}
                )
        out.append(message)
    return out, count
