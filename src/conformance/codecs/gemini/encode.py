"""Conversation → Gemini `generateContent` / `streamGenerateContent?alt=sse` request."""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.base import WireRequest
from conformance.codecs.gemini.contents import build_contents
from conformance.codecs.gemini.tables import TOOL_CHOICE_MODES
from conformance.exceptions import InputError
from conformance.model import Conversation, Options, ToolSpec


def _declaration(tool: ToolSpec) -> dict[str, Any]:
    decl: dict[str, Any] = {"name": tool.name}
    if tool.description:
        decl["description"] = tool.description
    params = tool.parameters
    # A no-argument tool is sent without `parameters` (an empty OBJECT schema is rejected).
    if params and not (params.get("type") == "object" and not params.get("properties")):
        decl["parameters"] = params
    return decl


def _tool_config(choice: str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(choice, str):
        mode = TOOL_CHOICE_MODES.get(choice)
        if mode is None:
            raise InputError(f"unknown tool_choice {choice!r}", where="options.tool_choice")
        return {"functionCallingConfig": {"mode": mode}}
    function = choice.get("function")
    name = choice.get("name") or (function.get("name") if isinstance(function, dict) else None)
    if not isinstance(name, str) or not name:
        raise InputError("a named tool_choice needs a tool name", where="options.tool_choice")
    return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}}


def _generation_config(options: Options, profile: ProviderProfile) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if options.max_tokens is not None:
        config[profile.max_tokens_field] = options.max_tokens
    if options.temperature is not None:
        config["temperature"] = options.temperature
    if options.top_p is not None:
        config["topP"] = options.top_p
    if options.stop:
        config["stopSequences"] = list(options.stop)
    if options.thinking_budget is not None:
        budget = options.thinking_budget
        config["thinkingConfig"] = {"thinkingBudget": budget, "includeThoughts": budget != 0}
    return config


def encode(conv: Conversation, profile: ProviderProfile) -> WireRequest:
    model = (conv.model or profile.default_model).removeprefix("models/")
    if not model:
        raise InputError("no model", where="model")
    system, contents = build_contents(conv.messages, profile, model)
    body: dict[str, Any] = {}
    if system:
        body["systemInstruction"] = {"parts": system}
    body["contents"] = contents
    if conv.tools:
        body["tools"] = [{"functionDeclarations": [_declaration(t) for t in conv.tools]}]
    if conv.options.tool_choice is not None:
        body["toolConfig"] = _tool_config(conv.options.tool_choice)
    if config := _generation_config(conv.options, profile):
        body["generationConfig"] = config
    stream = conv.options.stream
    path = f"/models/{model}:" + ("streamGenerateContent?alt=sse" if stream else "generateContent")
    headers = {"content-type": "application/json", **profile.extra_headers}
    return WireRequest(method="POST", path=path, body=body, headers=headers, stream=stream)
