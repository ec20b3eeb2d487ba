"""`Conversation` → Messages API request (`POST /messages`).

Turn building: system messages (wherever they sit) become the top-level `system` array, in order.
Tool results become `tool_result` blocks in the user turn that follows the assistant's
`tool_use`; consecutive user-side messages (tool results and user text) merge into one user turn
with the `tool_result` blocks first, and consecutive assistant messages merge into one turn.
Empty text blocks are not sent (the API rejects them), nor is a turn left empty. Thinking is sent
back verbatim with its signature; a thinking block without a signature (made by another
provider) cannot be verified by the API and is not sent. Text signatures (a Gemini concept) are
not sent. A server-tool block of this dialect (`server_tool_use`, `web_search_tool_result`, …) goes
back unchanged; one of another dialect is not sent (repair drops it). The option `server_tools`
declares the API's own tools (`web_search_20250305`, …), sent after the function tools.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.anthropic.vocabulary import DIALECT, PASSTHROUGH_OPTIONS, TOOL_CHOICES
from conformance.codecs.base import WireRequest
from conformance.codecs.server_tools import server_tool_specs
from conformance.exceptions import InputError
from conformance.model import (
    AssistantMessage,
    Conversation,
    ImageBlock,
    Options,
    RedactedThinkingBlock,
    ServerToolBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)

WireBlock = dict[str, Any]


def encode(conv: Conversation, profile: ProviderProfile) -> WireRequest:
    model = conv.model or profile.default_model
    options = conv.options
    body: dict[str, Any] = {"model": model, "max_tokens": _max_tokens(options, profile, model)}
    system = [_text(block) for m in conv.messages if isinstance(m, SystemMessage) for block in m.content if block.text]
    if system:
        body["system"] = system
    body["messages"] = _turns(conv)
    tools = [_tool(t) for t in conv.tools] + server_tool_specs(options)
    if tools:
        body["tools"] = tools
    if options.tool_choice is not None:
        body["tool_choice"] = _tool_choice(options.tool_choice, conv)
    thinking = None if options.thinking_budget is None else _thinking(options.thinking_budget)
    if thinking is not None:
        body["thinking"] = thinking
    if options.temperature is not None and (thinking is None or thinking["type"] != "enabled"):
        body["temperature"] = options.temperature
    if options.top_p is not None:
        body["top_p"] = options.top_p
    if options.stop:
        body["stop_sequences"] = list(options.stop)
    extra = options.model_extra or {}
    body.update({key: extra[key] for key in PASSTHROUGH_OPTIONS if key in extra})
    if options.stream:
        body["stream"] = True
    headers = {"content-type": "application/json", **profile.extra_headers}
    return WireRequest(method="POST", path="/messages", body=body, headers=headers, stream=options.stream)


def _max_tokens(options: Options, profile: ProviderProfile, model: str) -> int:
    if options.max_tokens is not None:
        return max(options.max_tokens, 1)
    return max(min(profile.default_max_tokens, profile.model_info(model).max_output), 1)


def _tool(tool: ToolSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool.name}
    if tool.description:
        out["description"] = tool.description
    out["input_schema"] = tool.parameters
    return out


def _thinking(budget: int) -> dict[str, Any]:
    if budget < 0:
        raise InputError("must be >= 0", where="options.thinking_budget")
    return {"type": "enabled", "budget_tokens": budget} if budget else {"type": "disabled"}


def _tool_choice(choice: str | dict[str, Any], conv: Conversation) -> dict[str, Any]:
    where = "options.tool_choice"
    if isinstance(choice, str):
        if choice in TOOL_CHOICES:
            return dict(TOOL_CHOICES[choice])
        name = choice
    else:
        function = choice.get("function")
        named = choice.get("name") or (function.get("name") if isinstance(function, dict) else None)
        if not isinstance(named, str) or not named:
            raise InputError("an object tool choice needs a tool `name`", where=where)
        name = named
    if name not in {t.name for t in conv.tools}:
        raise InputError(f"{name!r} is neither auto/none/required nor a declared tool", where=where)
    return {"type": "tool", "name": name}


# turns -----------------------------------------------------------------------------------------


class _Turn:
    def __init__(self, role: str) -> None:
        self.role = role
        self.results: list[WireBlock] = []
        """`tool_result` blocks; they go first in a user turn."""
        self.blocks: list[WireBlock] = []

    def wire(self) -> dict[str, Any]:
        return {"role": self.role, "content": self.results + self.blocks}


def _turns(conv: Conversation) -> list[dict[str, Any]]:
    turns: list[_Turn] = []
    for i, message in enumerate(conv.messages):
        where = f"messages[{i}]"
        if isinstance(message, SystemMessage):
            continue
        role = "assistant" if isinstance(message, AssistantMessage) else "user"
        if not turns or turns[-1].role != role:
            turns.append(_Turn(role))
        turn = turns[-1]
        if isinstance(message, ToolResultMessage):
            turn.results.append(_tool_result(message, where))
        elif isinstance(message, UserMessage):
            turn.blocks.extend(_user_blocks(message.content, where))
        else:
            turn.blocks.extend(_assistant_blocks(message, where))
        if not turn.results and not turn.blocks:
            turns.pop()  # nothing sendable: the neighbours may merge
    return [turn.wire() for turn in turns]


def _text(block: TextBlock) -> WireBlock:
    return {"type": "text", "text": block.text}


def _image(block: ImageBlock, where: str) -> WireBlock:
    if block.data is not None:
        if not block.media_type:
            raise InputError("a base64 image needs `media_type`", where=f"{where}.media_type")
        source = {"type": "base64", "media_type": block.media_type, "data": block.data}
    elif block.url is not None:
        source = _url_source(block.url, where)
    else:
        raise InputError("an image needs `data` or `url`", where=where)
    return {"type": "image", "source": source}


def _url_source(url: str, where: str) -> dict[str, Any]:
    """A `data:` URL is sent as base64 (Anthropic fetches only http(s) URLs)."""
    if not url.startswith("data:"):
        return {"type": "url", "url": url}
    header, sep, data = url[len("data:") :].partition(",")
    media_type, _, encoding = header.partition(";")
    if not sep or encoding != "base64" or not media_type:
        raise InputError("only base64 `data:` URLs with a media type can be sent", where=f"{where}.url")
    return {"type": "base64", "media_type": media_type, "data": data}


def _user_blocks(blocks: Sequence[TextBlock | ImageBlock | ServerToolBlock], where: str) -> list[WireBlock]:
    out: list[WireBlock] = []
    for j, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            if block.text:
                out.append(_text(block))
        elif isinstance(block, ServerToolBlock):
            if block.dialect == DIALECT:
                out.append(copy.deepcopy(block.data))
        else:
            out.append(_image(block, f"{where}.content[{j}]"))
    return out


def _tool_result(message: ToolResultMessage, where: str) -> WireBlock:
    result: WireBlock = {"type": "tool_result", "tool_use_id": message.tool_call_id}
    blocks = _user_blocks(message.content, where)
    if len(blocks) == 1 and blocks[0]["type"] == "text":
        result["content"] = blocks[0]["text"]
    elif blocks:
        result["content"] = blocks
    if message.is_error:
        result["is_error"] = True
    return result


def _assistant_blocks(message: AssistantMessage, where: str) -> list[WireBlock]:
    out: list[WireBlock] = []
    for j, block in enumerate(message.content):
        if isinstance(block, ThinkingBlock):
            if block.signature is not None:
                out.append({"type": "thinking", "thinking": block.thinking, "signature": block.signature})
        elif isinstance(block, RedactedThinkingBlock):
            out.append({"type": "redacted_thinking", "data": block.data})
        elif isinstance(block, TextBlock):
            if block.text:
                out.append(_text(block))
        elif isinstance(block, ToolCallBlock):
            if not block.name:  # Anthropic rejects it (`tool_use.name`: at least 1 character), as Gemini does
                raise InputError("a tool call needs a name", where=f"{where}.content[{j}].name")
            out.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.arguments})
        elif isinstance(block, ServerToolBlock):
            if block.dialect == DIALECT:  # another dialect's item cannot be replayed here: repair drops it
                out.append(copy.deepcopy(block.data))
        else:
            raise InputError("an assistant turn cannot carry an image", where=f"{where}.content[{j}]")
    return out
