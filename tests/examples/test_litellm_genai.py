"""The litellm and google-genai adapters: a stream cut into pieces reaches the library's own decoder in those
pieces (a probe inside the library counts the reads) and reads as the whole body does; an unsupported library
release ends in one line naming it."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.exceptions import InputError
from conformance.replay.cassette import load_cassette
from conformance.runtime.loading import load_runtime
from tests.examples import library_warnings as warn
from tests.lazy import require

require("google.genai", "litellm")

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [warn.TYPEDDICT, warn.INSTANCE_ATTRIBUTE]


def _pieces(body: bytes, size: int) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def _recorded(provider: str, name: str) -> tuple[int, dict[str, str], bytes, bool]:
    it = load_cassette(ROOT / "cassettes" / provider / f"{name}.yaml").interactions[0]
    return it.response.status, it.response.flat_headers(), it.response.body, it.request.stream_requested()


def test_google_genai_reads_a_stream_in_the_row_s_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    from examples.google_genai_runtime import make

    reads: list[bytes] = []
    real = httpx.Response.aiter_raw

    async def probe(self: httpx.Response, chunk_size: int | None = None) -> Any:
        async for chunk in real(self, chunk_size):
            reads.append(chunk)  # what the SDK's line reader is handed, read by read
            yield chunk

    status, headers, body, stream = _recorded("gemini", "tool_call_stream")
    assert stream
    runtime = make()
    whole = runtime.decode("gemini", status, headers, [body], True)
    monkeypatch.setattr(httpx.Response, "aiter_raw", probe)
    split = runtime.decode("gemini", status, headers, _pieces(body, 40), True)
    assert len(reads) >= 3
    assert b"".join(reads) == body
    assert split == whole
    assert whole["message"]["stop_reason"] == "tool_use"


def test_litellm_reads_a_stream_in_the_row_s_pieces_as_the_whole_body() -> None:
    from examples.litellm_runtime import make

    status, headers, body, stream = _recorded("openai", "stream_text_multibyte")
    assert stream
    runtime = make()
    whole = runtime.decode("openai", status, headers, [body], True)
    split = runtime.decode("openai", status, headers, _pieces(body, 7), True)
    assert "message" in whole
    assert split == whole


def test_litellm_s_kept_apart_fields_are_read_in_the_answer_s_order() -> None:
    """Anthropic's own tools' blocks, which litellm keeps in `provider_specific_fields`, come back
    where the answer had them: the search after the text of a paused turn (the call's block index),
    before a cited answer, whose joined text splits again at the citations' own text."""
    from examples.litellm_runtime import make

    runtime = make()

    def read(name: str) -> dict[str, Any]:
        status, headers, body, stream = _recorded("anthropic", name)
        answer: dict[str, Any] = runtime.decode("anthropic", status, headers, [body], stream)["message"]
        return answer

    paused = read("stop_pause_turn")
    assert [b.get("name", b["type"]) for b in paused["content"]] == [
        "text",
        "server_tool_use",
        "web_search_tool_result",
    ]
    assert paused["stop_reason"] == "stop"  # litellm's finish reason says `length`; the raw `pause_turn` is kept
    assert paused["content"][1]["data"]["input"] == {"query": "Norway electric car share of new sales 2026"}
    cited = read("server_tool_web_search")
    assert [b.get("name", b.get("text")) for b in cited["content"]] == [
        "server_tool_use",
        "web_search_tool_result",
        "Ruby 3.4.0 was released on ",
        "December 25, 2024",
        ".",
    ]


def test_an_unsupported_library_release_ends_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda d: "1.50.0" if d == "litellm" else real(d))
    monkeypatch.delitem(sys.modules, "examples.litellm_runtime", raising=False)
    with pytest.raises(InputError, match=r"litellm 1\.50\.0 is not a release this adapter covers \(1\.60 and later\)"):
        load_runtime("examples.litellm_runtime:make")
    monkeypatch.delitem(sys.modules, "examples.litellm_runtime", raising=False)
