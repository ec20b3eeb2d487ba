"""Conversation → Chat Completions request body (OpenAI and every OpenAI-compatible profile).

- system messages become `system` (or the profile's `system_role`, or the model's `system_role`)
  messages, in place;
- user content is a string when it is one text block, else parts (`text`, `image_url` with a URL
  or a `data:` URL);
- assistant text is joined into `content` (null when the turn is tool calls only); tool calls carry
  their arguments as a JSON string (the original text when the arguments were not valid JSON);
  thinking goes back in the profile's first reasoning field only when the profile (or the model)
  accepts reasoning in history (`send_reasoning_back`) — OpenAI has no such field, DeepSeek R1
  rejects it;
- tool results become `tool` messages; there is no error flag on the wire, so an error result's
  text is prefixed with `Error: `. A `tool` message holds text only: the images of a run of tool
  results follow it in one `user` message, each introduced by the id of the call it answers;
- a thinking budget goes where the profile takes one (OpenRouter `reasoning: {max_tokens}`); other
  Chat Completions servers take an effort level, not a token budget, so it is not sent;
- max tokens go in the profile's field (`max_completion_tokens` for OpenAI and for reasoning
  models); temperature and stop only where the model accepts them; streaming asks for usage when
  the profile needs `stream_options`.

Tool-call ids that break the profile's `tool_id_pattern` (Mistral: exactly 9 alphanumerics) are
remapped deterministically, the same way in the calls and in their results (`tool_ids`); ids that
fit are sent as they are.
Unknown options are passed through to the body unchanged. The path names a deployment and an
`api-version` where the profile asks for them (Azure OpenAI: `ProviderProfile.endpoint`).
"""

from __future__ import annotations

from typing import Any

import orjson

from conformance.capabilities import ProviderProfile
from conformance.codecs.base import WireRequest
from conformance.codecs.tool_ids import tool_id_map
from conformance.exceptions import InputError
from conformance.model import (
    AssistantMessage,
    Conversation,
    ImageBlock,
    ServerToolBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)

_OPTION_FIELDS = frozenset({"max_tokens", "temperature", "top_p", "stop", "stream", "tool_choice", "thinking_budget"})


def _image_url(block: ImageBlock, where: str) -> str:
    if block.url:
        return block.url
    if block.data and block.media_type:
        return f"data:{block.media_type};base64,{block.data}"
    raise InputError("an image needs a url, or data with its media_type", where=where)


def _user_content(blocks: list[Any], where: str) -> str | list[dict[str, Any]]:
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock):
        return str(blocks[0].text)
    parts: list[dict[str, Any]] = []
    for j, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            parts.append({"type": "text", "text": block.text})
        else:
            parts.append({"type": "image_url", "image_url": {"url": _image_url(block, f"{where}.content[{j}]")}})
    return parts


def _arguments(block: ToolCallBlock) -> str:
    if block.raw_arguments is not None and not block.arguments:
        return block.raw_arguments
    return orjson.dumps(block.arguments).decode()


def _sends_reasoning(profile: ProviderProfile, model: str) -> bool:
    override = profile.model_info(model).send_reasoning_back
    allowed = profile.send_reasoning_back if override is None else override
    return allowed and bool(profile.reasoning_fields)


def _assistant(message: AssistantMessage, profile: ProviderProfile, model: str, ids: dict[str, str]) -> dict[str, Any]:
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    calls = [b for b in message.content if isinstance(b, ToolCallBlock)]
    out: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
    if calls:
        out["tool_calls"] = [
            {
                "id": ids.get(c.id, c.id),
                "type": "function",
                "function": {"name": c.name, "arguments": _arguments(c)},
            }
            for c in calls
        ]
    thinking = "".join(b.thinking for b in message.content if isinstance(b, ThinkingBlock))
    if thinking and _sends_reasoning(profile, model):
        out[profile.reasoning_fields[0]] = thinking
    return out


IMAGES_FOLLOW = "The result is the image(s) in the next message."
"""A `tool` message's text when the result was images only."""


def _tool_result(message: ToolResultMessage, call_id: str, has_images: bool) -> dict[str, Any]:
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    if not text and has_images:
        text = IMAGES_FOLLOW
    return {"role": "tool", "tool_call_id": call_id, "content": f"Error: {text}" if message.is_error else text}


def _result_images(message: ToolResultMessage, call_id: str, where: str) -> list[dict[str, Any]]:
    """The image parts of a tool result, introduced by the id of the call it answers."""
    parts = [
        {"type": "image_url", "image_url": {"url": _image_url(block, f"{where}.content[{j}]")}}
        for j, block in enumerate(message.content)
        if isinstance(block, ImageBlock)
    ]
    return [{"type": "text", "text": f"Image(s) returned by tool call {call_id}:"}, *parts] if parts else []


def _tool_choice(choice: str | dict[str, Any], profile: ProviderProfile) -> Any:
    if isinstance(choice, dict):
        name = choice.get("name")
        return {"type": "function", "function": {"name": name}} if isinstance(name, str) else choice
    if choice == "required":
        return profile.tool_choice_required
    if choice in ("auto", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _messages(conv: Conversation, profile: ProviderProfile, model: str) -> list[dict[str, Any]]:
    """The `messages` array: images of tool results follow their run in a `user` message."""
    info = profile.model_info(model)
    system_role = info.system_role or profile.system_role
    ids = tool_id_map(conv.messages, profile)
    messages: list[dict[str, Any]] = []
    images: list[dict[str, Any]] = []
    """Image parts of the current run of tool results, sent in a `user` message after the run."""
    for i, message in enumerate(conv.messages):
        where = f"messages[{i}]"
        if images and not isinstance(message, ToolResultMessage):
            messages.append({"role": "user", "content": images})
            images = []
        if isinstance(message, SystemMessage):
            messages.append({"role": system_role, "content": "".join(b.text for b in message.content)})
        elif isinstance(message, UserMessage):
            blocks = [b for b in message.content if not isinstance(b, ServerToolBlock)]  # no Chat form
            messages.append({"role": "user", "content": _user_content(blocks, where)})
        elif isinstance(message, AssistantMessage):
            messages.append(_assistant(message, profile, model, ids))
        else:
            call_id = ids.get(message.tool_call_id, message.tool_call_id)
            result_images = _result_images(message, call_id, where)
            messages.append(_tool_result(message, call_id, bool(result_images)))
            images += result_images
    if images:
        messages.append({"role": "user", "content": images})
    if profile.prefill_flag and messages and messages[-1]["role"] == "assistant":
        messages[-1][profile.prefill_flag] = True  # a prefill: the server continues this text
    return messages


def _sampling(body: dict[str, Any], conv: Conversation, profile: ProviderProfile, model: str) -> None:
    """Token limit, sampling options and the reasoning budget, each where the model takes it."""
    info = profile.model_info(model)
    opts = conv.options
    if opts.max_tokens is not None:
        field = profile.reasoning_max_tokens_field if info.reasoning and profile.reasoning_max_tokens_field else None
        body[field or profile.max_tokens_field] = max(1, opts.max_tokens)
    if opts.temperature is not None and info.accepts_temperature:
        body["temperature"] = opts.temperature
    if opts.top_p is not None and info.accepts_temperature:
        body["top_p"] = opts.top_p
    if opts.stop and info.accepts_stop:
        body["stop"] = opts.stop
    if opts.thinking_budget is not None and profile.reasoning_budget_object:
        budget = opts.thinking_budget
        if budget < 0:
            raise InputError("must be >= 0", where="options.thinking_budget")
        body[profile.reasoning_budget_object] = {"max_tokens": budget} if budget > 0 else {"enabled": False}


def encode(conv: Conversation, profile: ProviderProfile) -> WireRequest:
    model = conv.model or profile.default_model
    body: dict[str, Any] = {"model": model, "messages": _messages(conv, profile, model)}
    if conv.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    **({"description": t.description} if t.description else {}),
                    "parameters": t.parameters,
                },
            }
            for t in conv.tools
        ]
    opts = conv.options
    if opts.tool_choice is not None:
        body["tool_choice"] = _tool_choice(opts.tool_choice, profile)
    _sampling(body, conv, profile, model)
    for key, value in (opts.model_extra or {}).items():
        if key not in _OPTION_FIELDS:
            body[key] = value
    if opts.stream:
        body["stream"] = True
        if profile.stream_usage_option:
            body["stream_options"] = {"include_usage": True}
    headers = {"content-type": "application/json", **profile.extra_headers}
    return WireRequest("POST", profile.endpoint("/chat/completions", model), body, headers, stream=opts.stream)
