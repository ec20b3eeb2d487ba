"""Terse message builders for hand-written transcripts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.capabilities import ProviderProfile, get_profile
from conformance.codecs import codec_for
from conformance.model import (
    AssistantMessage,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
    dump,
)
from conformance.runtime.repair import RepairOptions, RepairResult, repair


def system(text: str) -> SystemMessage:
    return SystemMessage(content=[TextBlock(text=text)])


def user(*texts: str) -> UserMessage:
    return UserMessage(content=[TextBlock(text=t) for t in texts])


def call(call_id: str, name: str = "get_weather", **arguments: Any) -> ToolCallBlock:
    return ToolCallBlock(id=call_id, name=name, arguments=arguments)


def thinking(text: str = "hmm", signature: str | None = "sig") -> ThinkingBlock:
    return ThinkingBlock(thinking=text, signature=signature)


def assistant(*blocks: str | Any, **fields: Any) -> AssistantMessage:
    content = [TextBlock(text=b) if isinstance(b, str) else b for b in blocks]
    return AssistantMessage(content=content, **fields)


def result(call_id: str, text: str = "ok", *, is_error: bool = False, name: str = "get_weather") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextBlock(text=text)], is_error=is_error)


def run(messages: Sequence[Any], provider: str = "openai", **kwargs: Any) -> RepairResult:
    profile: ProviderProfile = get_profile(provider)
    options = kwargs.pop("options", RepairOptions())
    return repair(messages, profile, options=options, **kwargs)


def dumped(messages: Sequence[Any]) -> list[dict[str, Any]]:
    return [dump(m) for m in messages]


def rules(res: RepairResult) -> list[str]:
    return [a.rule for a in res.actions]


def found_rules(body: dict[str, Any], provider: str) -> set[str]:
    """The rule ids the dialect's validator finds broken in `body` (whether the provider enforces
    them is the rule book's: tests/codecs/test_rule_book.py)."""
    profile = get_profile(provider)
    check = codec_for(profile).validate
    assert check is not None
    return {v.rule for v in check(body, profile)}
