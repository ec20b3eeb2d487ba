"""Work Google's own tools did is kept: code execution (`executableCode`, `codeExecutionResult`)
and server-side tool calls (`toolCall`, `toolResponse`, with the search tool of Gemini 3) are one
`server_tool` block per part, the part whole with its `thoughtSignature`, and go back unchanged.

The bodies are authored excerpts shaped as the recordings of pydantic-ai's Gemini tests show them
(`test_native_output_with_function_and_builtin_tools`, `test_google_model_file_search_tool_stream`)
and as Google documents code execution (`executableCode` {language, code}, `codeExecutionResult`
{outcome, output}).
"""

from __future__ import annotations

from typing import Any

import orjson

from conformance.codecs.gemini import GeminiStream
from conformance.codecs.gemini.contents import build_contents
from conformance.model import AssistantMessage, ServerToolBlock, TextBlock, dump
from tests.codecs.gemini.helpers import PROFILE, outcome, run, sse

CODE = {"executableCode": {"language": "PYTHON", "code": "print(2 + 2)\n"}, "thoughtSignature": "c2lnLWNvZGU="}
RESULT = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}}
CALL = {
    "toolCall": {"args": {"queries": ["largest city in Mexico"]}, "id": "ccnih13d", "toolType": "GOOGLE_SEARCH_WEB"},
    "thoughtSignature": "c2lnLWNhbGw=",
}
RESPONSE = {"toolResponse": {"id": "ccnih13d", "response": {"search_suggestions": "<div>…</div>"}}}
PARTS: list[dict[str, Any]] = [CODE, RESULT, CALL, RESPONSE, {"text": "Mexico City; 2 + 2 is 4."}]
BODY = orjson.dumps({"candidates": [{"content": {"role": "model", "parts": PARTS}, "finishReason": "STOP"}]})

EXPECTED = [
    {"type": "server_tool", "dialect": "gemini", "name": "executableCode", "data": CODE},
    {
        "type": "server_tool",
        "dialect": "gemini",
        "name": "codeExecutionResult",
        "status": "OUTCOME_OK",
        "data": RESULT,
    },
    {"type": "server_tool", "dialect": "gemini", "name": "toolCall", "id": "ccnih13d", "data": CALL},
    {
        "type": "server_tool",
        "dialect": "gemini",
        "name": "toolResponse",
        "id": "ccnih13d",
        "data": RESPONSE,
    },
    {"type": "text", "text": "Mexico City; 2 + 2 is 4."},
]


def test_server_parts_are_blocks_with_their_signatures() -> None:
    result = outcome(200, BODY, stream=False)
    assert result.message is not None
    assert dump(result.message)["content"] == EXPECTED
    assert result.message.stop_reason == "stop"  # Google's own tools are not client tool calls


def test_a_stream_keeps_them_the_same() -> None:
    chunks = b"".join(
        sse(orjson.dumps({"candidates": [{"content": {"role": "model", "parts": [part]}}]}).decode()) for part in PARTS
    ) + sse('{"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"STOP"}]}')
    _, message = run(chunks)
    assert dump(message)["content"] == EXPECTED
    acc = GeminiStream(PROFILE)
    acc.feed(chunks)
    acc.finish()
    assert acc.unsupported_parts == []


def test_they_go_back_unchanged_to_gemini() -> None:
    message = AssistantMessage(
        content=[
            *(ServerToolBlock(dialect="gemini", name=next(iter(p)), data=p) for p in PARTS[:4]),
            TextBlock(text="Mexico City; 2 + 2 is 4."),
        ],
        provider="gemini",
    )
    _, contents = build_contents([message], PROFILE, "gemini-2.5-flash")
    assert contents[0]["parts"] == PARTS
