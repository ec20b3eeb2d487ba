"""Conversation → Ollama `/api/chat` request.

`stream` is always explicit (Ollama streams by default). Models without native tool calling
(`ModelInfo.native_tools` False) get their tools through `prompt_tools`: described in the system
prompt, with tool history rendered as text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.base import WireRequest
from conformance.codecs.ollama.prompt_tools import render_calls, render_result, tool_instructions
from conformance.exceptions import InputError
from conformance.model import (
    AssistantMessage,
    Conversation,
    ImageBlock,
    Options,
    ServerToolBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserBlock,
)

_DATA_URL = re.compile(r"data:[^;,]+;base64,(?P<data>.*)", re.DOTALL)


def _images(blocks: Sequence[UserBlock | ServerToolBlock], where: str) -> list[str]:
    """Ollama takes raw base64 strings; data URLs are unwrapped, remote URLs cannot be sent."""
    out: list[str] = []
    for j, block in enumerate(blocks):
        if not isinstance(block, ImageBlock):
            continue
        if block.data:
            out.append(block.data)
        elif block.url and (match := _DATA_URL.fullmatch(block.url)):
            out.append(match["data"])
        else:
            raise InputError("Ollama takes images as base64 data, not URLs", where=f"{where}.content[{j}]")
    return out


def _text(blocks: Sequence[Any]) -> str:
    return "".join(b.text for b in blocks if isinstance(b, TextBlock))


def _user(
    role: str, blocks: Sequence[UserBlock | ServerToolBlock], where: str, text: str | None = None
) -> dict[str, Any]:
    """A user-side message; server-tool blocks have no Ollama form and are not sent."""
    out: dict[str, Any] = {"role": role, "content": _text(blocks) if text is None else text}
    if images := _images(blocks, where):
        out["images"] = images
    return out


def _assistant(msg: AssistantMessage, *, reasoning: bool, native: bool) -> dict[str, Any]:
    calls = [b for b in msg.content if isinstance(b, ToolCallBlock)]
    content = _text(msg.content)
    out: dict[str, Any] = {"role": "assistant", "content": content}
    thinking = "".join(b.thinking for b in msg.content if isinstance(b, ThinkingBlock))
    if reasoning and thinking:
        out["thinking"] = thinking
    if calls and native:
        out["tool_calls"] = [{"id": c.id, "function": {"name": c.name, "arguments": c.arguments}} for c in calls]
    elif calls:
        out["content"] = f"{content}\n\n{render_calls(calls)}" if content else render_calls(calls)
    return out


def _messages(conv: Conversation, profile: ProviderProfile, model: str, tool_prompt: str | None) -> list[Any]:
    info = profile.model_info(model)
    reasoning = profile.send_reasoning_back if info.send_reasoning_back is None else info.send_reasoning_back
    native = info.native_tools
    names = {
        b.id: b.name
        for m in conv.messages
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ToolCallBlock)
    }
    out: list[dict[str, Any]] = []
    for i, msg in enumerate(conv.messages):
        where = f"messages[{i}]"
        if isinstance(msg, SystemMessage):
            out.append({"role": "system", "content": _text(msg.content)})
        elif isinstance(msg, AssistantMessage):
            out.append(_assistant(msg, reasoning=reasoning, native=native))
        elif isinstance(msg, ToolResultMessage):
            out.append(_tool_result(msg, names.get(msg.tool_call_id), where, native=native))
        else:
            out.append(_user("user", msg.content, where))
    if tool_prompt is not None:
        first_system = next((m for m in out if m["role"] == "system"), None)
        if first_system is None:
            out.insert(0, {"role": "system", "content": tool_prompt})
        else:
            first_system["content"] = f"{first_system['content']}\n\n{tool_prompt}".lstrip()
    return out


def _tool_result(msg: ToolResultMessage, looked_up: str | None, where: str, *, native: bool) -> dict[str, Any]:
    name = msg.tool_name or looked_up
    if not native:
        text = render_result(name, msg.tool_call_id, _text(msg.content), is_error=msg.is_error)
        return _user("user", msg.content, where, text=text)
    out = _user("tool", msg.content, where)
    if name:
        out["tool_name"] = name
    out["tool_call_id"] = msg.tool_call_id
    return out


def _options(options: Options) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if options.max_tokens is not None:
        out["num_predict"] = options.max_tokens
    if options.temperature is not None:
        out["temperature"] = options.temperature
    if options.top_p is not None:
        out["top_p"] = options.top_p
    if options.stop:
        out["stop"] = list(options.stop)
    return out


def _must_call(choice: str | dict[str, Any] | None) -> str | None:
    """Prompt tools: "" = any tool must be called, a name = that tool, None = free choice."""
    if choice is None or choice == "auto":
        return None
    if choice in ("required", "any"):
        return ""
    if isinstance(choice, dict):
        function = choice.get("function")
        name = choice.get("name") or (function.get("name") if isinstance(function, dict) else None)
        if isinstance(name, str) and name:
            return name
    raise InputError(f"unknown tool_choice {choice!r}", where="options.tool_choice")


def encode(conv: Conversation, profile: ProviderProfile) -> WireRequest:
    model = conv.model or profile.default_model
    choice = conv.options.tool_choice
    # tool_choice "none": the tools are not offered at all (Ollama has no tool_choice field;
    # "required" or a named tool can only be asked for in the prompt-tools text).
    tools = [] if choice == "none" else conv.tools
    must_call = None if choice == "none" else _must_call(choice)
    native = profile.model_info(model).native_tools
    tool_prompt = tool_instructions(tools, must_call=must_call) if tools and not native else None
    body: dict[str, Any] = {
        "model": model,
        "messages": _messages(conv, profile, model, tool_prompt),
        "stream": conv.options.stream,
    }
    if tools and native:
        body["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
            }
            for t in tools
        ]
    if options := _options(conv.options):
        body["options"] = options
    if conv.options.thinking_budget is not None:
        body["think"] = conv.options.thinking_budget != 0
    headers = {"content-type": "application/json", **profile.extra_headers}
    return WireRequest(method="POST", path="/api/chat", body=body, headers=headers, stream=conv.options.stream)
