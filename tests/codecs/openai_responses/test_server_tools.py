"""Built-in tool items (`web_search_call`, `mcp_call`, …) as `server_tool` blocks: decoded from a
JSON body and from a stream the same way, kept in the order received, sent back unchanged."""

from __future__ import annotations

import re
from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.exceptions import InputError
from conformance.model import ServerToolBlock, TextBlock
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.validate import validate
from tests.codecs.openai_responses.helpers import decode_json, decode_stream, every_split, response, sse

REASONING = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA-enc"}
SEARCH_STARTED = {"id": "ws_1", "type": "web_search_call", "status": "in_progress", "action": {"type": "search"}}
SEARCH = {
    "id": "ws_1",
    "type": "web_search_call",
    "status": "completed",
    "action": {
        "type": "search",
        "query": "Oslo weather",
        "sources": [{"type": "url", "url": "https://www.yr.no/en"}],
    },
}
CITATION = {"type": "url_citation", "start_index": 0, "end_index": 9, "url": "https://www.yr.no/en", "title": "Yr"}
MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "It is 3 °C.", "annotations": [CITATION]}],
}
BLOCK = ServerToolBlock(dialect="openai_responses", name="web_search_call", id="ws_1", status="completed", data=SEARCH)


def _stream(final_output: list[dict[str, Any]], *, cut_after_added: bool = False) -> bytes:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response([], status="in_progress")},
        {"type": "response.output_item.added", "output_index": 0, "item": SEARCH_STARTED},
        {"type": "response.web_search_call.in_progress", "output_index": 0, "item_id": "ws_1"},
    ]
    if cut_after_added:
        return sse(*events)
    message_started = {**MESSAGE, "status": "in_progress", "content": []}
    part = {"type": "output_text", "text": "", "annotations": []}
    events += [
        {"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"},
        {"type": "response.web_search_call.completed", "output_index": 0, "item_id": "ws_1"},
        {"type": "response.output_item.done", "output_index": 0, "item": SEARCH},
        {"type": "response.output_item.added", "output_index": 1, "item": message_started},
        {
            "type": "response.content_part.added",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "part": part,
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": "It is ",
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": "3 °C.",
        },
        {
            "type": "response.output_text.annotation.added",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "annotation_index": 0,
            "annotation": CITATION,
        },
        {"type": "response.output_item.done", "output_index": 1, "item": MESSAGE},
        {"type": "response.completed", "response": response(final_output)},
    ]
    return sse(*events)


def test_a_json_body_keeps_the_item_whole_and_in_place() -> None:
    out = decode_json(response([SEARCH, MESSAGE]))
    assert out.message is not None
    assert out.message.content == [BLOCK, TextBlock(text="It is 3 °C.", signature="msg_1")]
    assert out.message.stop_reason == "stop"  # a built-in tool is not a client tool call


def test_reasoning_keeps_its_place_beside_the_items_it_led_to() -> None:
    """xAI interleaves reasoning items with its searches; the items go back in that order."""
    later = {**REASONING, "id": "rs_2", "encrypted_content": "gAAA-two"}
    out = decode_json(response([REASONING, SEARCH, later, MESSAGE]))
    assert out.message is not None
    assert [b.type for b in out.message.content] == ["thinking", "server_tool", "thinking", "text"]


def test_a_stream_gives_what_the_json_body_gives_in_any_chunking() -> None:
    streamed = every_split(_stream([SEARCH, MESSAGE]))
    assert streamed.message is not None
    assert streamed.message == decode_json(response([SEARCH, MESSAGE])).message


def test_the_item_of_output_item_done_wins_over_output_item_added() -> None:
    """The final response may omit its output: `output_item.done` alone carries the final item."""
    out = decode_stream(_stream([]))
    assert out.message is not None
    assert out.message.content[0] == BLOCK


def test_the_final_response_is_authoritative() -> None:
    final = {**SEARCH, "action": {**SEARCH["action"], "queries": ["Oslo weather"]}}  # type: ignore[dict-item]
    out = decode_stream(_stream([final, MESSAGE]))
    assert out.message is not None
    assert out.message.content[0] == BLOCK.model_copy(update={"data": final})


def test_a_cut_stream_keeps_the_search_that_began() -> None:
    out = decode_stream(_stream([], cut_after_added=True))
    assert out.error is not None and out.error.kind == "stream_interrupted"
    assert out.partial is not None
    assert out.partial.content == [
        ServerToolBlock(
            dialect="openai_responses",
            name="web_search_call",
            id="ws_1",
            status="in_progress",
            data=SEARCH_STARTED,
        )
    ]


def test_an_mcp_approval_request_is_kept_for_its_answer() -> None:
    ask = {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "server_label": "deepwiki",
        "name": "ask_question",
        "arguments": '{"repoName":"openai/codex"}',
    }
    out = decode_json(response([ask]))
    assert out.message is not None
    assert out.message.content == [
        ServerToolBlock(dialect="openai_responses", name="mcp_approval_request", id="mcpr_1", data=ask)
    ]


def _history(*content: dict[str, Any], provider: str = "openai_responses") -> dict[str, Any]:
    return {
        "model": "gpt-5-mini",
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            {"role": "assistant", "provider": provider, "model": "gpt-5-mini", "content": list(content)},
            {"role": "user", "content": "And tomorrow?"},
        ],
    }


def test_history_sends_the_items_back_unchanged_in_their_order() -> None:
    sig = '{"id":"rs_1","encrypted_content":"gAAA-enc"}'
    conv = _history(
        {"type": "thinking", "thinking": "", "signature": sig},
        BLOCK.model_dump(),
        {"type": "text", "text": "It is 3 °C.", "signature": "msg_1"},
    )
    body = ReferenceRuntime().encode(conv, "openai_responses")
    assert body["input"][1:4] == [
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA-enc"},
        SEARCH,
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "It is 3 °C."}],
            "id": "msg_1",
        },
    ]
    assert validate(body, get_profile("openai_responses")) == []


def test_another_dialects_block_is_not_sent() -> None:
    foreign = {"type": "server_tool", "dialect": "anthropic", "name": "server_tool_use", "data": {"type": "x"}}
    body = ReferenceRuntime().encode(_history(foreign, {"type": "text", "text": "Sunny."}), "openai_responses")
    assert [i.get("type", i.get("role")) for i in body["input"]] == ["user", "message", "user"]


def test_a_reasoning_item_may_lead_to_a_built_in_tool_item() -> None:
    body = {"model": "gpt-5-mini", "store": False, "input": [{"role": "user", "content": "q"}, REASONING, SEARCH]}
    assert validate(body, get_profile("openai_responses")) == []


def test_server_tools_are_declared_after_the_function_tools() -> None:
    conv = {
        "messages": [{"role": "user", "content": "q"}],
        "tools": [{"name": "f", "parameters": {"type": "object", "properties": {}}}],
        "options": {"server_tools": [{"type": "web_search", "search_context_size": "low"}]},
    }
    body = ReferenceRuntime().encode(conv, "openai_responses")
    assert [t["type"] for t in body["tools"]] == ["function", "web_search"]
    assert body["tools"][1] == {"type": "web_search", "search_context_size": "low"}
    assert "server_tools" not in body


@pytest.mark.parametrize(
    ("value", "where"), [("web_search", "options.server_tools"), ([{"name": "x"}], "options.server_tools[0]")]
)
def test_a_malformed_server_tools_option_names_itself(value: Any, where: str) -> None:
    conv = {"messages": [{"role": "user", "content": "q"}], "options": {"server_tools": value}}
    with pytest.raises(InputError, match=re.escape(where)):
        ReferenceRuntime().encode(conv, "openai_responses")


ASK = {
    "type": "mcp_approval_request",
    "id": "mcpr_1",
    "server_label": "deepwiki",
    "name": "ask_question",
    "arguments": '{"repoName":"openai/codex"}',
}
APPROVE = {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}


def _approval(*user_content: dict[str, Any]) -> dict[str, Any]:
    request = {"type": "server_tool", "dialect": "openai_responses", "name": "mcp_approval_request", "data": ASK}
    return {
        "messages": [
            {"role": "user", "content": "What is openai/codex about?"},
            {"role": "assistant", "content": [request]},
            {"role": "user", "content": list(user_content)},
        ]
    }


def test_an_approval_answers_its_request_as_its_own_item() -> None:
    answer = {"type": "server_tool", "dialect": "openai_responses", "name": "mcp_approval_response", "data": APPROVE}
    body = ReferenceRuntime().encode(_approval(answer), "openai_responses")
    assert body["input"] == [{"role": "user", "content": "What is openai/codex about?"}, ASK, APPROVE]
    assert validate(body, get_profile("openai_responses")) == []


def test_text_around_an_answer_stays_a_user_message_in_place() -> None:
    answer = {"type": "server_tool", "dialect": "openai_responses", "name": "mcp_approval_response", "data": APPROVE}
    body = ReferenceRuntime().encode(_approval({"type": "text", "text": "Yes."}, answer), "openai_responses")
    assert body["input"][2:] == [{"role": "user", "content": "Yes."}, APPROVE]


SHELL_OUTPUT = {
    "id": "sho_1",
    "type": "shell_call_output",
    "status": "completed",
    "call_id": "call_sh",
    "max_output_length": None,
    "output": [{"outcome": {"type": "exit", "exit_code": 0}, "stdout": "SKILL.md\n", "stderr": ""}],
}
PROGRAM = {"id": "cm_1", "type": "program", "call_id": "call_p", "code": "text('x')", "fingerprint": "gAAA"}
PROGRAM_OUTPUT = {"id": "cmo_1", "type": "program_output", "status": "completed", "call_id": "call_p", "result": "{}"}


@pytest.mark.parametrize("item", [SHELL_OUTPUT, PROGRAM, PROGRAM_OUTPUT], ids=lambda i: str(i["type"]))
def test_hosted_shell_output_and_programs_are_server_side_work(item: dict[str, Any]) -> None:
    """A hosted shell's `shell_call_output` and the `program` / `program_output` of programmatic
    tool calling are run by the API: kept whole, in place, from a JSON body and a stream alike."""
    expected = ServerToolBlock(
        dialect="openai_responses",
        name=str(item["type"]),
        id=str(item["id"]),
        status=item.get("status"),
        data=item,
    )
    out = decode_json(response([item, MESSAGE]))
    assert out.message is not None
    assert out.message.content[0] == expected
    streamed = every_split(
        sse(
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": response([item, MESSAGE])},
        )
    )
    assert streamed.message is not None
    assert streamed.message.content[0] == expected
