"""Tools for models without native tool calling (`ModelInfo.native_tools` is False).

Encode describes the tools in the system prompt and renders tool history as text; decode finds
the fenced reply block and turns it into ordinary tool-call blocks. The reply format:

    ```json
    {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
    ```

Works on canonical types only, so any dialect can use it. Text that is not a valid tool-call
block (bad JSON, or JSON of another shape, e.g. a structured answer) stays text: never lost.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from conformance import jsonvalue
from conformance.codecs.arguments import coerce_arguments
from conformance.model import AssistantBlock, AssistantMessage, TextBlock, ToolCallBlock, ToolSpec

_FENCE = re.compile(r"```[ \t]*+(?:json[ \t]*+)?\r?\n?(?P<body>.*?)```", re.DOTALL | re.IGNORECASE)
"""A fenced block. The blanks around `json` are matched possessively: two optional runs of blanks
side by side let the engine try every split of a long run (cubic time on a fence followed by
thousands of spaces and no closing fence)."""

REPLY_FORMAT = (
    "To call tools, reply with one fenced JSON block in exactly this form:\n"
    '```json\n{"tool_calls": [{"name": "<tool name>", "arguments": {<arguments as JSON>}}]}\n```\n'
    "Tool results come back in a user message that starts with [tool_result <name> <id>]."
)


def tool_instructions(tools: list[ToolSpec], *, must_call: str | None = None) -> str:
    """The system-prompt section describing `tools`. `must_call`: "" = any tool, a name = that one."""
    lines = ["You can call these tools:"]
    for tool in tools:
        lines.append(f"- {tool.name}: {tool.description}" if tool.description else f"- {tool.name}")
        lines.append(f"  parameters (JSON schema): {orjson.dumps(tool.parameters).decode()}")
    lines.extend(["", REPLY_FORMAT])
    if must_call == "":
        lines.append("You must call at least one tool.")
    elif must_call:
        lines.append(f"You must call the tool {must_call}.")
    return "\n".join(lines)


def render_calls(calls: list[ToolCallBlock]) -> str:
    """Earlier tool calls, as the fenced block the model was asked to write."""
    payload = {"tool_calls": [{"name": c.name, "arguments": c.arguments} for c in calls]}
    return "```json\n" + orjson.dumps(payload).decode() + "\n```"


def render_result(name: str | None, call_id: str, text: str, *, is_error: bool = False) -> str:
    tag = " ".join(p for p in ("tool_result", name or "", call_id, "error" if is_error else "") if p)
    return f"[{tag}]\n{text}"


def _parse_calls(body: str) -> list[tuple[str, dict[str, Any], str | None]] | None:
    try:
        value = jsonvalue.loads(body.strip())
    except orjson.JSONDecodeError:
        return None
    calls = value.get("tool_calls") if isinstance(value, dict) else None
    if not isinstance(calls, list) or not calls:
        return None
    out: list[tuple[str, dict[str, Any], str | None]] = []
    for call in calls:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
            return None
        args, raw = coerce_arguments(call.get("arguments"))
        out.append((call["name"], args, raw))
    return out


def _split(text: str) -> list[str | tuple[str, dict[str, Any], str | None]] | None:
    """Text and parsed calls in order, or None when the text holds no tool-call block."""
    pieces: list[str | tuple[str, dict[str, Any], str | None]] = []
    pos, found = 0, False
    for match in _FENCE.finditer(text):
        calls = _parse_calls(match["body"])
        if calls is None:
            continue
        found = True
        pieces.append(text[pos : match.start()])
        pieces.extend(calls)
        pos = match.end()
    if not found:
        return None
    pieces.append(text[pos:])
    return [p.strip() if isinstance(p, str) else p for p in pieces if not isinstance(p, str) or p.strip()]


def extract_calls(message: AssistantMessage) -> AssistantMessage:
    """Turn tool-call blocks written in the reply text into tool-call blocks.

    Parsed calls get the contract's deterministic `call_<n>` (n = ordinal among the message's
    tool calls), so stream and non-stream agree. A `stop` turn with parsed calls becomes `tool_use`.
    Signed text blocks are left whole (their signature belongs to the text as sent).
    """
    content: list[AssistantBlock] = []
    parsed = False
    for block in message.content:
        pieces = _split(block.text) if isinstance(block, TextBlock) and block.signature is None else None
        if pieces is None:
            content.append(block)
            continue
        parsed = True
        for piece in pieces:
            if isinstance(piece, str):
                content.append(TextBlock(text=piece))
            else:
                name, args, raw = piece
                content.append(ToolCallBlock(id="", name=name, arguments=args, raw_arguments=raw))
    if not parsed:
        return message
    ordinal = 0
    for block in content:
        if isinstance(block, ToolCallBlock):
            if not block.id:
                block.id = f"call_{ordinal}"
            ordinal += 1
    update: dict[str, Any] = {"content": content}
    if message.stop_reason == "stop":
        update["stop_reason"] = "tool_use"
    return message.model_copy(update=update)
