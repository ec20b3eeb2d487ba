from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.exceptions import InputError
from conformance.model import Conversation, ToolCallBlock
from conformance.runtime.entry import validate_entry
from conformance.runtime.prepare import prepare
from conformance.runtime.tools import ToolContext, ToolRegistry, run_tool_calls


def call(name: str, i: int = 0, **args: Any) -> ToolCallBlock:
    return ToolCallBlock(id=f"c{i}", name=name, arguments=args)


async def test_calls_run_in_order_and_each_gets_a_result() -> None:
    order: list[str] = []
    reg = ToolRegistry()

    async def slow(args: dict[str, Any], ctx: ToolContext) -> str:
        await asyncio.sleep(0.02)
        order.append("slow")
        return "s"

    async def fast(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        order.append("fast")
        return {"ok": True}

    reg.register("slow", slow)
    reg.register("fast", fast)
    results = await run_tool_calls([call("slow", 0), call("fast", 1), call("nope", 2)], reg)
    assert order == ["slow", "fast"]
    assert [(r.tool_call_id, r.is_error) for r in results] == [("c0", False), ("c1", False), ("c2", True)]
    assert results[1].content[0].text == '{"ok": true}'  # type: ignore[union-attr]
    assert "unknown tool 'nope'" in results[2].content[0].text  # type: ignore[union-attr]


async def test_timeout_kills_a_subprocess_tool() -> None:
    reg = ToolRegistry()
    reg.register_command("sleep", lambda a: [sys.executable, "-c", "import time; time.sleep(30)"], timeout_s=0.3)
    start = time.monotonic()
    (result,) = await run_tool_calls([call("sleep")], reg)
    assert time.monotonic() - start < 5
    assert result.is_error and "timed out after 0.3s" in result.content[0].text  # type: ignore[union-attr]


async def test_abort_stops_the_running_tool_and_the_rest() -> None:
    reg = ToolRegistry()
    abort = asyncio.Event()

    async def forever(args: dict[str, Any], ctx: ToolContext) -> str:
        abort.set()
        await asyncio.sleep(30)
        return "never"

    reg.register("forever", forever)
    results = await run_tool_calls([call("forever", 0), call("forever", 1)], reg, abort=abort)
    assert [r.is_error for r in results] == [True, True]
    assert "aborted" in results[0].content[0].text  # type: ignore[union-attr]
    assert "not run: aborted" in results[1].content[0].text  # type: ignore[union-attr]


async def test_sub_agent_depth_limit_and_tool_errors() -> None:
    reg = ToolRegistry()

    async def agent(args: dict[str, Any], ctx: ToolContext) -> str:
        return f"depth {ctx.depth}"

    async def broken(args: dict[str, Any], ctx: ToolContext) -> str:
        raise ValueError("disk full")

    reg.register("agent", agent, spawns_agent=True)
    reg.register("broken", broken)
    ok = await run_tool_calls([call("agent")], reg, depth=1, max_depth=2)
    assert ok[0].content[0].text == "depth 2"  # type: ignore[union-attr]
    refused = await run_tool_calls([call("agent")], reg, depth=2, max_depth=2)
    assert "refused: sub-agent depth 3 exceeds the limit of 2" in refused[0].content[0].text  # type: ignore[union-attr]
    (err,) = await run_tool_calls([call("broken")], reg)
    assert err.is_error and err.content[0].text == "ValueError: disk full"  # type: ignore[union-attr]


async def test_schema_defaults_are_applied_before_the_tool_runs() -> None:
    conv = Conversation.model_validate(
        {
            "messages": [{"role": "user", "content": "book"}],
            "tools": [
                {
                    "name": "book",
                    "parameters": {
                        "type": "object",
                        "properties": {"seating": {"type": "string", "default": "indoor"}, "size": {"type": "integer"}},
                    },
                }
            ],
        }
    )
    prepared = prepare(conv, get_profile("gemini"))
    assert "default" not in prepared.conversation.tools[0].parameters["properties"]["seating"]
    seen: list[dict[str, Any]] = []

    async def book(args: dict[str, Any], ctx: ToolContext) -> str:
        seen.append(args)
        return "booked"

    reg = ToolRegistry()
    reg.register("book", book)
    await run_tool_calls([call("book", size=2)], reg, prepared=prepared)
    assert seen == [{"size": 2, "seating": "indoor"}]


@pytest.mark.parametrize(
    ("conversation", "key", "message"),
    [
        ({"messages": [{"role": "user", "content": "hi"}]}, "", "anthropic needs an API key (ANTHROPIC_API_KEY)"),
        ({"messages": []}, "k", "messages: at least one message is needed"),
        ({"messages": [{"role": "user", "content": [{"type": "text"}]}]}, "k", "messages[0].content[0].text"),
        (
            {
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"name": "t", "parameters": {"type": "string"}}],
            },
            "k",
            "tools[0].parameters",
        ),
    ],
)
def test_entry_validation(conversation: dict[str, Any], key: str, message: str) -> None:
    with pytest.raises(
        InputError, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(").replace(")", r"\)")
    ):
        validate_entry(conversation, get_profile("anthropic"), key)
