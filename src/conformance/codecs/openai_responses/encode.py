"""Conversation → Responses request body (`POST /responses`).

- system messages become `system` (or the profile's / model's `system_role`, `developer` for
  OpenAI reasoning models) message items, in place;
- user content is a string when it is one text block, else `input_text` / `input_image` parts; a
  server-tool block of this dialect in a user turn (an `mcp_approval_response`) is its own item;
- an assistant message becomes its items in order: thinking → a `reasoning` item (its signature
  holds the item `id` and `encrypted_content`; the text goes back as one `summary_text`), text →
  an assistant `message` item with `output_text` (consecutive text blocks of one item — the same
  signature — are one item, whose `id` is the signature), tool call → a `function_call` item
  (`call_id` = the call's id, `id` = its signature, `arguments` as a JSON string), a server-tool
  block of this dialect → its item, unchanged (one of another dialect is not sent: repair drops it);
- a tool result is a `function_call_output` answering the `call_id`: a string, or `input_text` /
  `input_image` parts when it holds images; an error result's text is prefixed with `Error: `
  (the wire has no error flag);
- history: without `previous_response_id` the whole conversation is sent and `store: false`
  (the runtime owns the history; reasoning models also get
  `include: ["reasoning.encrypted_content"]` so their reasoning can come back). With the option
  `previous_response_id` the server holds everything up to that response, so only the messages
  after the last assistant message are sent (a profile without stored responses refuses it);
- tools are flat `{"type": "function", "name", "description", "parameters", "strict": false}`
  (`strict` defaults to true on this API, which rejects most schemas), followed by the built-in
  tools of the option `server_tools` (`{"type": "web_search"}`, …) as they are; `tool_choice` is
  `auto | none | required` or `{"type": "function", "name"}`;
- max tokens go in `max_output_tokens` (at least the profile's `min_max_tokens`: OpenAI rejects
  fewer than 16); there is no `stop` parameter (the profile's models do not accept stop); a
  thinking budget is not sent (the API takes `reasoning.effort`, passed through as an option).

Unknown options are passed through to the body unchanged.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

from conformance.capabilities import ProviderProfile
from conformance.codecs.base import WireRequest
from conformance.codecs.openai_responses.items import parse_reasoning_signature
from conformance.codecs.openai_responses.tables import DIALECT
from conformance.codecs.server_tools import OPTION as SERVER_TOOLS_OPTION
from conformance.codecs.server_tools import server_tool_specs
from conformance.codecs.tool_ids import tool_id_map
from conformance.exceptions import InputError
from conformance.model import (
    AssistantMessage,
    Conversation,
    ImageBlock,
    Message,
    ServerToolBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)

_OPTION_FIELDS = frozenset(
    {
        "max_tokens",
        "temperature",
        "top_p",
        "stop",
        "stream",
        "tool_choice",
        "thinking_budget",
        "previous_response_id",
        SERVER_TOOLS_OPTION,
    }
)


def _image(block: ImageBlock, where: str) -> dict[str, Any]:
    if block.url:
        return {"type": "input_image", "image_url": block.url}
    if block.data and block.media_type:
        return {"type": "input_image", "image_url": f"data:{block.media_type};base64,{block.data}"}
    raise InputError("an image needs a url, or data with its media_type", where=where)


def _user_content(blocks: list[Any], where: str) -> str | list[dict[str, Any]]:
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock):
        return str(blocks[0].text)
    return [
        {"type": "input_text", "text": b.text} if isinstance(b, TextBlock) else _image(b, f"{where}.content[{j}]")
        for j, b in enumerate(blocks)
    ]


def _user(message: UserMessage, where: str) -> list[dict[str, Any]]:
    """A user message item; a server-tool block of this dialect (an `mcp_approval_response`) is its
    own item, in place between the runs of text and images around it."""
    items: list[dict[str, Any]] = []
    run: list[Any] = []
    for block in [*message.content, None]:
        if block is not None and not isinstance(block, ServerToolBlock):
            run.append(block)
            continue
        if run:
            items.append({"role": "user", "content": _user_content(run, where)})
            run = []
        if block is not None and block.dialect == DIALECT:
            items.append(copy.deepcopy(block.data))
    return items


def _arguments(block: ToolCallBlock) -> str:
    if block.raw_arguments is not None and not block.arguments:
        return block.raw_arguments
    return orjson.dumps(block.arguments).decode()


def _assistant(message: AssistantMessage, ids: dict[str, str]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    text_item: dict[str, Any] | None = None
    for block in message.content:
        if isinstance(block, TextBlock):
            if text_item is not None and text_item.get("id") == block.signature:
                text_item["content"].append({"type": "output_text", "text": block.text})
                continue
            text_item = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": block.text}],
            }
            if block.signature:
                text_item["id"] = block.signature
            items.append(text_item)
            continue
        text_item = None
        if isinstance(block, ThinkingBlock):
            if block.signature is None:
                continue  # repair drops unsigned thinking for this dialect; nothing to send it as
            fields = parse_reasoning_signature(block.signature)
            summary = [{"type": "summary_text", "text": block.thinking}] if block.thinking else []
            item: dict[str, Any] = {"type": "reasoning", **({"id": fields["id"]} if "id" in fields else {})}
            item["summary"] = summary
            if "encrypted_content" in fields:
                item["encrypted_content"] = fields["encrypted_content"]
            items.append(item)
        elif isinstance(block, ToolCallBlock):
            call: dict[str, Any] = {"type": "function_call", "call_id": ids.get(block.id, block.id)}
            call.update({"name": block.name, "arguments": _arguments(block)})
            if block.signature:
                call["id"] = block.signature
            items.append(call)
        elif isinstance(block, ServerToolBlock) and block.dialect == DIALECT:
            items.append(copy.deepcopy(block.data))
    return items


def _tool_result(message: ToolResultMessage, call_id: str, where: str) -> dict[str, Any]:
    prefix = "Error: " if message.is_error else ""
    if not any(isinstance(b, ImageBlock) for b in message.content):
        text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
        return {"type": "function_call_output", "call_id": call_id, "output": prefix + text}
    parts: list[dict[str, Any]] = [{"type": "input_text", "text": prefix}] if prefix else []
    for j, block in enumerate(message.content):
        if isinstance(block, TextBlock):
            parts.append({"type": "input_text", "text": block.text})
        else:
            parts.append(_image(block, f"{where}.content[{j}]"))
    return {"type": "function_call_output", "call_id": call_id, "output": parts}


def _tool_choice(choice: str | dict[str, Any]) -> Any:
    if isinstance(choice, dict):
        name = choice.get("name")
        return {"type": "function", "name": name} if isinstance(name, str) else choice
    if choice in ("auto", "none", "required"):
        return choice
    return {"type": "function", "name": choice}


def _after_last_assistant(messages: list[Message]) -> tuple[int, list[Message]]:
    last = max((i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)), default=-1)
    return last + 1, messages[last + 1 :]


def _previous(conv: Conversation, profile: ProviderProfile) -> tuple[str | None, int, list[Message]]:
    """`previous_response_id` when given (then only the messages after the last answer are sent)."""
    previous = (conv.options.model_extra or {}).get("previous_response_id")
    if previous is None:
        return None, 0, list(conv.messages)
    if not profile.stored_responses:
        raise InputError(f"{profile.name} keeps no responses: send the whole history", where="options")
    if not isinstance(previous, str) or not previous:
        raise InputError("must be a response id (a non-empty string)", where="options.previous_response_id")
    start, messages = _after_last_assistant(list(conv.messages))
    return previous, start, messages


def _input_items(
    conv: Conversation, profile: ProviderProfile, model: str, start: int, messages: list[Message]
) -> list[dict[str, Any]]:
    """The `input` items of `messages` (the first at index `start` of the conversation)."""
    info = profile.model_info(model)
    system_role = info.system_role or profile.system_role
    ids = tool_id_map(conv.messages, profile)
    items: list[dict[str, Any]] = []
    for i, message in enumerate(messages, start):
        where = f"messages[{i}]"
        if isinstance(message, SystemMessage):
            items.append({"role": system_role, "content": "".join(b.text for b in message.content)})
        elif isinstance(message, UserMessage):
            items += _user(message, where)
        elif isinstance(message, AssistantMessage):
            items += _assistant(message, ids)
        else:
            items.append(_tool_result(message, ids.get(message.tool_call_id, message.tool_call_id), where))
    return items


def encode(conv: Conversation, profile: ProviderProfile) -> WireRequest:
    model = conv.model or profile.default_model
    info = profile.model_info(model)
    opts = conv.options
    extra = opts.model_extra or {}
    previous, start, messages = _previous(conv, profile)
    body: dict[str, Any] = {"model": model, "input": _input_items(conv, profile, model, start, messages)}
    if previous is not None:
        body["previous_response_id"] = previous
    else:
        body["store"] = False
        if info.reasoning:
            body["include"] = ["reasoning.encrypted_content"]
    tools = [
        {
            "type": "function",
            "name": t.name,
            **({"description": t.description} if t.description else {}),
            "parameters": t.parameters,
            "strict": False,
        }
        for t in conv.tools
    ] + server_tool_specs(opts)
    if tools:
        body["tools"] = tools
    if opts.tool_choice is not None:
        body["tool_choice"] = _tool_choice(opts.tool_choice)
    if opts.max_tokens is not None:
        body[profile.max_tokens_field] = max(profile.min_max_tokens, opts.max_tokens)
    if opts.temperature is not None and info.accepts_temperature:
        body["temperature"] = opts.temperature
    if opts.top_p is not None and info.accepts_temperature:
        body["top_p"] = opts.top_p
    for key, value in extra.items():
        if key not in _OPTION_FIELDS:
            body[key] = value
    if opts.stream:
        body["stream"] = True
    headers = {"content-type": "application/json", **profile.extra_headers}
    return WireRequest("POST", profile.endpoint("/responses", model), body, headers, stream=opts.stream)
