"""What a program built on an official SDK writes itself: its conversation as the SDK's call
parameters. The SDKs take wire parameters, not a conversation, so this mapping is part of the
runtime under test — written here the plain way an SDK user writes it, from the SDKs' own docs
(no reference-runtime code): text, images, tool calls and results, Anthropic thinking blocks sent
back with their signatures, and the options the call takes. Nothing is repaired, sanitized,
clamped or renamed; whatever a provider would object to shows up as a request finding."""

from __future__ import annotations

import json
from typing import Any

from conformance.adapters import conversation_parts, text_of
from conformance.capabilities import ProviderProfile

_OPTIONS = ("temperature", "top_p", "tool_choice")


def _parts(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])


def _image_url(block: dict[str, Any]) -> str:
    return str(block.get("url") or f"data:{block.get('media_type')};base64,{block.get('data')}")


def max_tokens_field(profile: ProviderProfile, model: str) -> str:
    """The completion-limit parameter the host documents for `model` (OpenAI: `max_completion_tokens`;
    most other OpenAI-compatible hosts: `max_tokens`, and some reject or ignore the other name)."""
    if profile.reasoning_max_tokens_field and profile.model_info(model).reasoning:
        return profile.reasoning_max_tokens_field
    return profile.max_tokens_field


def chat_params(
    conversation: dict[str, Any], default_model: str, limit_field: str = "max_tokens"
) -> tuple[dict[str, Any], bool]:
    """CONVERSATION.json → (`chat.completions.create` keyword arguments, stream); the conversation's
    `max_tokens` goes in `limit_field`, the name the host documents for it."""
    messages, options, model = conversation_parts(conversation)
    out: list[dict[str, Any]] = []
    for m in messages:
        role, parts = m.get("role"), _parts(m.get("content"))
        if role in ("system", "user"):
            images = [p for p in parts if p.get("type") == "image"]
            if images and role == "user":
                content: Any = [
                    {"type": "text", "text": p["text"]}
                    if p.get("type") == "text"
                    else {"type": "image_url", "image_url": {"url": _image_url(p)}}
                    for p in parts
                    if p.get("type") in ("text", "image")
                ]
            else:
                content = text_of(parts)
            out.append({"role": role, "content": content})
        elif role == "assistant":
            msg: dict[str, Any] = {"role": "assistant", "content": text_of(parts) or None}
            calls = [p for p in parts if p.get("type") == "tool_call"]
            if calls:
                msg["tool_calls"] = [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments") or {})},
                    }
                    for c in calls
                ]
            out.append(msg)
        elif role == "tool_result":
            out.append({"role": "tool", "tool_call_id": m.get("tool_call_id"), "content": text_of(parts)})
    params: dict[str, Any] = {"model": model or default_model, "messages": out}
    if "max_tokens" in options:
        params[limit_field] = options["max_tokens"]
    if "stop" in options:
        params["stop"] = options["stop"]
    params |= {k: options[k] for k in _OPTIONS if k in options}
    tools = conversation.get("tools") or []
    if tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t.get("description", ""),
                    "parameters": t.get("parameters") or {"type": "object"},
                },
            }
            for t in tools
        ]
    return params, bool(options.get("stream"))


def messages_params(
    conversation: dict[str, Any], default_model: str, default_max_tokens: int = 1024
) -> tuple[dict[str, Any], bool]:
    """CONVERSATION.json → (`messages.create` keyword arguments, stream)."""
    messages, options, model = conversation_parts(conversation)
    system = "".join(text_of(m.get("content")) for m in messages if m.get("role") == "system")
    out: list[dict[str, Any]] = []
    for m in messages:
        role, parts = m.get("role"), _parts(m.get("content"))
        if role == "user":
            out.append(
                {"role": "user", "content": [_anthropic_block(p) for p in parts if p.get("type") in ("text", "image")]}
            )
        elif role == "assistant":
            out.append(
                {"role": "assistant", "content": [_anthropic_block(p) for p in parts if p.get("type") != "server_tool"]}
            )
        elif role == "tool_result":
            block = {"type": "tool_result", "tool_use_id": m.get("tool_call_id"), "content": text_of(parts)}
            if m.get("is_error"):
                block["is_error"] = True
            out.append({"role": "user", "content": [block]})
    params: dict[str, Any] = {
        "model": model or default_model,
        "max_tokens": options.get("max_tokens", default_max_tokens),
        "messages": out,
    }
    if system:
        params["system"] = system
    if "stop" in options:
        params["stop_sequences"] = options["stop"] if isinstance(options["stop"], list) else [options["stop"]]
    params |= {k: options[k] for k in ("temperature", "top_p") if k in options}
    tools = conversation.get("tools") or []
    if tools:
        params["tools"] = [
            {
                "name": t["name"],
                "description": t.get("description", ""),
                "input_schema": t.get("parameters") or {"type": "object"},
            }
            for t in tools
        ]
    return params, bool(options.get("stream"))


def _anthropic_block(p: dict[str, Any]) -> dict[str, Any]:
    kind = p.get("type")
    if kind == "text":
        return {"type": "text", "text": p.get("text", "")}
    if kind == "image":
        if p.get("url"):
            return {"type": "image", "source": {"type": "url", "url": p["url"]}}
        return {"type": "image", "source": {"type": "base64", "media_type": p.get("media_type"), "data": p.get("data")}}
    if kind == "tool_call":
        return {"type": "tool_use", "id": p.get("id"), "name": p.get("name"), "input": p.get("arguments") or {}}
    if kind == "thinking":
        return {"type": "thinking", "thinking": p.get("thinking", ""), "signature": p.get("signature") or ""}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": p.get("data", "")}
    return {"type": "text", "text": str(p.get("text", ""))}
