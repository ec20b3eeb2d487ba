"""One choice's message or delta → builder calls. Shared by the JSON and the stream paths.

Parts are keyed so that streamed deltas extend the same blocks: text and reasoning by segment
(a new segment starts whenever the kind changes), tool calls by their id — the `index` only maps
to the id first seen on it, so providers that repeat `id`/`name` on every delta are not doubled,
and calls that all arrive on index 0 with distinct ids stay apart. Calls without any id are keyed
by index and get the contract's `call_<n>` ids; a call with neither id nor index starts a new call
when it names a function and extends the last call otherwise. In a whole message (non-streaming)
every entry of `tool_calls` is its own call, whatever its id.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.builder import MessageBuilder
from conformance.codecs.openai_chat.think_tags import Kind, ThinkTagSplitter
from conformance.model import Source, Usage


class ChoiceState:
    """Per-response state for choice 0."""

    def __init__(self, profile: ProviderProfile, builder: MessageBuilder) -> None:
        self.profile = profile
        self.builder = builder
        self.tags = ThinkTagSplitter() if profile.think_tags else None
        self._reasoning_fields = profile.reasoning_fields + profile.reasoning_fields_read
        self.refused = False
        self._segment = 0
        self._last_kind: str | None = None
        self._segment_key: tuple[str, int] = ("", 0)
        self._index_ids: dict[int, Hashable] = {}
        self._last_tool: Hashable | None = None
        self._anonymous = 0
        self.tool_keys: dict[Hashable, None] = {}
        """Every tool call seen, in order (closed when the choice finishes)."""

    # text and reasoning -------------------------------------------------------------------------

    def _key(self, kind: str) -> tuple[str, int]:
        if kind != self._last_kind:
            self._segment += 1
            self._last_kind = kind
            self._segment_key = (kind, self._segment)
        return self._segment_key

    def text(self, text: str) -> None:
        """The common delta: plain text with no tag splitting."""
        key = self._segment_key if self._last_kind == "text" else self._key("text")
        if not self.builder.append(key, "text", text):
            self.builder.text(key, text)

    def add(self, kind: Kind, text: str, *, signature: str | None = None) -> None:
        if not text and not signature:
            return
        if kind == "thinking":
            self.builder.thinking(self._key("thinking"), text, signature=signature)
        else:
            self.builder.text(self._key("text"), text)

    def content(self, text: str) -> None:
        if self.tags is None:
            self.add("text", text)
            return
        for kind, piece in self.tags.feed(text):
            self.add(kind, piece)

    def flush(self) -> None:
        if self.tags is not None:
            for kind, piece in self.tags.finish():
                self.add(kind, piece)

    def close_tools(self) -> None:
        for key in self.tool_keys:
            self.builder.close(key)

    def typed_content(self, parts: list[Any]) -> None:
        """Mistral's typed content chunks: `text`, and `thinking` holding text chunks."""
        for part in parts:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                self.content(part["text"])
            elif part.get("type") == "thinking":
                inner = part.get("thinking")
                items = inner if isinstance(inner, list) else [{"text": inner}]
                for item in items:
                    if isinstance(item, dict) and isinstance(item.get("text"), str):
                        self.add("thinking", item["text"])

    def content_object(self, content: dict[str, Any]) -> None:
        """A `content` sent as a JSON object instead of a string: Cloudflare's answer to a
        `json_schema` response format. A typed chunk is read as one; any other object is the
        answer itself and is kept as its compact JSON text (never dropped)."""
        if isinstance(content.get("type"), str):
            self.typed_content([content])
            return
        self.content(json.dumps(content, ensure_ascii=False, separators=(",", ":")))

    def reasoning(self, delta: dict[str, Any]) -> None:
        details = delta.get("reasoning_details") if self.profile.reasoning_details else None
        if isinstance(details, list) and details:
            for item in details:
                self._detail(item)
            return
        for name in self._reasoning_fields:
            value = delta.get(name)
            if isinstance(value, str) and value:
                self.add("thinking", value)
                return

    def _detail(self, item: Any) -> None:
        if not isinstance(item, dict):
            return
        kind = item.get("type")
        key = ("detail", _detail_key(item))
        if kind == "reasoning.encrypted" and isinstance(item.get("data"), str):
            self.builder.redacted_thinking(key, item["data"])
        elif kind in ("reasoning.text", "reasoning.summary"):
            text = item.get("text") if kind == "reasoning.text" else item.get("summary")
            signature = item.get("signature")
            self.builder.thinking(
                key, text if isinstance(text, str) else "", signature=signature if isinstance(signature, str) else None
            )

    # tool calls ------------------------------------------------------------------------------

    def argument_fragment(self, calls: Any) -> bool:
        """The common streamed delta — one argument fragment for a call already seen on its
        index — applied directly; False when `calls` is anything else."""
        if calls.__class__ is not list or len(calls) != 1:
            return False
        call = calls[0]
        if call.__class__ is not dict or len(call) != 2:
            return False
        fn = call.get("function")
        index = call.get("index")
        key = self._index_ids.get(index) if index.__class__ is int else None  # a list or object is no index
        if key is None or fn.__class__ is not dict or len(fn) != 1:
            return False
        fragment = fn.get("arguments")
        if fragment.__class__ is not str:
            return False
        self._last_tool = key
        if not self.builder.append(key, "tool_call", fragment):
            self.builder.tool_call(key, arguments_delta=fragment)
        return True

    def _tool_key(self, call_id: str | None, index: int | None, named: bool) -> Hashable:
        if call_id is not None:
            key: Hashable = ("tool", call_id)
            if index is not None:
                self._index_ids[index] = key  # a new id on a used index starts a new call
            return key
        if index is not None:
            return self._index_ids.setdefault(index, ("tool-index", index))
        if named or self._last_tool is None:
            self._anonymous += 1
            return ("tool-anonymous", self._anonymous)
        return self._last_tool

    def tool_calls(self, calls: list[Any], *, whole: bool = False) -> None:
        for position, call in enumerate(calls):
            if not isinstance(call, dict):
                continue
            fn_value = call.get("function")
            fn: dict[str, Any] = fn_value if isinstance(fn_value, dict) else {}
            call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
            index = call.get("index") if isinstance(call.get("index"), int) else None
            name = fn.get("name") if isinstance(fn.get("name"), str) and fn.get("name") else None
            key = ("tool-position", position) if whole else self._tool_key(call_id, index, name is not None)
            self._last_tool = key
            self.tool_keys[key] = None
            args = fn.get("arguments")
            self.builder.tool_call(
                key,
                id=call_id,
                name=name,
                arguments_delta=args if isinstance(args, str) else None,
                arguments=args if isinstance(args, dict) else None,
            )

    # whole message or delta -------------------------------------------------------------------

    def apply(self, delta: dict[str, Any], *, whole: bool = False) -> None:
        """A streamed `delta`, or (`whole`) a complete non-streaming `message`."""
        self.reasoning(delta)
        content = delta.get("content")
        if isinstance(content, str):
            self.content(content)
        elif isinstance(content, list):
            self.typed_content(content)
        elif isinstance(content, dict):
            self.content_object(content)
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            self.refused = True
            self.add("text", refusal)
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            self.tool_calls(calls, whole=whole)
        legacy = delta.get("function_call")
        if isinstance(legacy, dict):
            self.function_call(legacy)

    def function_call(self, call: dict[str, Any]) -> None:
        """The deprecated functions API: at most one `function_call` per message, with no id or
        index; a stream names it once and then sends argument fragments. An unnamed call that
        was never started is a placeholder some servers always send, not a call."""
        key = ("function_call",)
        name = call.get("name") if isinstance(call.get("name"), str) and call.get("name") else None
        if name is None and key not in self.tool_keys:
            return
        self._last_tool = key
        self.tool_keys[key] = None
        args = call.get("arguments")
        self.builder.tool_call(key, name=name, arguments_delta=args if isinstance(args, str) else None)


def first_choice(data: dict[str, Any]) -> dict[str, Any] | None:
    """Choice 0 of a completion or chunk (`choices: []` and other choices' chunks give None)."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        return None
    first = choices[0]
    if first.__class__ is dict and first.get("index", 0) == 0:
        return first
    for choice in choices:
        if isinstance(choice, dict) and choice.get("index", 0) == 0:
            return choice
    return None


def usage_of(data: Any, profile: ProviderProfile) -> Usage | None:
    """`usage` (or Groq's `x_groq.usage`) → Usage; None when absent or null."""
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        x_groq = data.get("x_groq") if isinstance(data, dict) else None
        usage = x_groq.get("usage") if isinstance(x_groq, dict) else None
    if not isinstance(usage, dict):
        return None

    def num(obj: Any, key: str) -> int:
        value = obj.get(key) if isinstance(obj, dict) else None
        return value if isinstance(value, int) else 0

    prompt = usage.get("prompt_tokens_details")
    completion = usage.get("completion_tokens_details")
    reasoning = num(completion, "reasoning_tokens")
    output = num(usage, "completion_tokens")
    if profile.output_excludes_reasoning:
        output += reasoning
    return Usage(
        input_tokens=num(usage, "prompt_tokens"),
        output_tokens=output,
        cache_read_tokens=num(prompt, "cached_tokens")
        or num(usage, "prompt_cache_hit_tokens")
        or num(usage, "cached_tokens"),  # Together reports it beside prompt_tokens
        cache_write_tokens=num(prompt, "cache_write_tokens"),
        reasoning_tokens=reasoning,
    )


def sources_of(data: Any, profile: ProviderProfile) -> list[Source] | None:
    """The web sources a response lists in the profile's `sources_fields` (first present wins):
    objects with a string `url` (and `title`), or URL strings; None when no such field is there."""
    if not isinstance(data, dict):
        return None
    for name in profile.sources_fields:
        items = data.get(name)
        if not isinstance(items, list):
            continue
        out: list[Source] = []
        for item in items:
            if isinstance(item, str) and item:
                out.append(Source(url=item))
            elif isinstance(item, dict) and isinstance(item.get("url"), str) and item["url"]:
                title = item.get("title")
                out.append(Source(url=item["url"], title=title if isinstance(title, str) and title else None))
        return out
    return None


def _detail_key(item: dict[str, Any]) -> int | str:
    """Which reasoning detail a streamed piece continues: its integer `index`, else its string
    `id`, else the first. Anything else on the wire (a list, an object) names no detail and is
    never used as a key (it is unhashable)."""
    index, ident = item.get("index"), item.get("id")
    if index.__class__ is int:
        return index
    if "index" not in item and isinstance(ident, str):
        return ident
    return 0
