"""Rules by which a row reads a runtime's answer as its provider would, each with a runtime they
must still catch: an id the wire does not carry is not judged by value (but must be there and be
unique), a `provider_code` may be any identifier the error body itself gives (but not one it does
not), and a request that differs is a typed finding (`request[N].path`), never a bare mismatch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.runtime.protocol import TurnRequest
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios

ROOT = Path(__file__).resolve().parents[2]


def _row(runtime: object, scenario: str, provider: str) -> ScenarioResult:
    chosen = [s for s in load_scenarios(ROOT / "scenarios") if s.id == scenario]
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    (result,) = run_all(chosen, [provider], ctx)
    return result


class _Decoding(ReferenceRuntime):
    """The reference's decoding, with `change` applied to every tool call (index, block)."""

    def __init__(self, change: Any) -> None:
        super().__init__()
        self.change = change

    def decode(self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool) -> Any:
        out = super().decode(provider, status, headers, chunks, stream)
        message = out.get("message") or {}
        calls = [b for b in message.get("content", []) if b.get("type") == "tool_call"]
        for i, block in enumerate(calls):
            self.change(i, block)
        return out


def test_an_id_gemini_does_not_send_is_the_runtimes_own() -> None:
    def invent(i: int, block: dict[str, Any]) -> None:
        block["id"] = f"mine-{i}-7f3a"

    got = _row(_Decoding(invent), "parallel_tool_calls_stream", "gemini")
    assert got.verdict == "pass", got.reason
    assert "the wire carries no id" in got.reason
    assert got.actual["message"]["content"][0]["id"] == "mine-0-7f3a"  # shown as answered


def test_an_invented_id_must_still_be_there_and_unique() -> None:
    def same(i: int, block: dict[str, Any]) -> None:
        block["id"] = "dup"

    def empty(i: int, block: dict[str, Any]) -> None:
        block["id"] = ""

    assert _row(_Decoding(same), "parallel_tool_calls_stream", "gemini").verdict == "fail"
    assert _row(_Decoding(empty), "parallel_tool_calls_stream", "gemini").verdict == "fail"


def test_an_id_the_wire_carries_is_judged_by_value() -> None:
    def invent(i: int, block: dict[str, Any]) -> None:
        block["id"] = f"mine-{i}"

    got = _row(_Decoding(invent), "tool_call_single", "openai")
    assert got.verdict == "fail"
    assert [e.path for e in got.diff] == ["message.content[0].id"]


class _Code(ReferenceRuntime):
    def __init__(self, code: str) -> None:
        super().__init__()
        self.code = code

    def decode(self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool) -> Any:
        out = super().decode(provider, status, headers, chunks, stream)
        out["error"]["provider_code"] = self.code
        return out


def test_provider_code_may_be_any_identifier_of_the_body() -> None:
    # Mistral's body: {"type": "invalid_request_error", "code": "3051", …}; the reference reports the type
    got = _row(_Code("3051"), "context_overflow", "mistral")
    assert got.verdict == "pass", got.reason
    assert "also the body's own code" in got.reason


def test_provider_code_the_body_does_not_give_is_wrong() -> None:
    got = _row(_Code("context_length_exceeded"), "context_overflow", "mistral")
    assert got.verdict == "fail"
    assert [(e.path, e.kind) for e in got.diff] == [("error.provider_code", "wrong")]


class _Renaming(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Passes requests on with `max_tokens` spelled `max_completion_tokens`."""

    def __init__(self, real: Any) -> None:
        self.real = real

    @staticmethod
    def _renamed(request: httpx.Request) -> httpx.Request:
        body = json.loads(request.read())
        if "max_tokens" in body:
            body["max_completion_tokens"] = body.pop("max_tokens")
        headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
        return httpx.Request(request.method, request.url, headers=headers, json=body)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.real.handle_request(self._renamed(request))  # type: ignore[no-any-return]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        return await self.real.handle_async_request(self._renamed(request))  # type: ignore[no-any-return]


class _SendsMaxCompletionTokens(ReferenceRuntime):
    """Sends the completion limit as `max_completion_tokens` to every OpenAI-chat host."""

    def turn(self, request: TurnRequest) -> dict[str, Any]:
        request.transport = _Renaming(request.transport)
        return super().turn(request)


def test_a_request_the_provider_rejects_is_a_typed_finding_on_a_turn_row() -> None:
    got = _row(_SendsMaxCompletionTokens(), "retry_429_retry_after", "mistral")
    assert got.verdict == "fail"
    assert ("request[1].max_completion_tokens", "extra") in [(e.path, e.kind) for e in got.diff]
    assert any(f.verdict == "fail" and "422" in f.fact for f in got.requests)


def test_a_spelling_the_provider_reads_alike_passes_the_turn_row() -> None:
    got = _row(_SendsMaxCompletionTokens(), "retry_429_retry_after", "groq")
    assert got.verdict == "pass", got.reason


class _EncodesExplicitly(ReferenceRuntime):
    """Spells out `"stream": false` and sends the limit as `max_completion_tokens`."""

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        body = super().encode(conversation, provider)
        body.setdefault("stream", False)
        if "max_tokens" in body:
            body["max_completion_tokens"] = body.pop("max_tokens")
        return body


def test_an_encode_row_fails_only_on_what_the_provider_reads_differently() -> None:
    got = _row(_EncodesExplicitly(), "encode_system_max_tokens", "deepseek")
    assert got.verdict == "fail"
    assert sorted((e.path, e.kind) for e in got.diff) == [
        ("max_completion_tokens", "extra"),
        ("max_tokens", "missing"),
    ]  # never `stream`, which DeepSeek reads as its default
    assert {f.path: f.verdict for f in got.requests}["max_tokens"] == "fail"
    passed = _row(_EncodesExplicitly(), "encode_system_max_tokens", "groq")
    assert passed.verdict == "pass", passed.reason


class _AlwaysStreams(ReferenceRuntime):
    """Asks every provider for a stream (with usage), whatever the conversation asks for."""

    def __init__(self, stream: bool = True) -> None:
        super().__init__()
        self.stream = stream

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        body = super().encode(conversation, provider)
        body["stream"] = self.stream
        if provider == "openai":
            if self.stream:
                body["stream_options"] = {"include_usage": True}
            else:
                body.pop("stream_options", None)
        return body


def test_an_unasked_stream_is_a_note() -> None:
    for provider in ("openai", "anthropic"):
        got = _row(_AlwaysStreams(), "encode_tool_history", provider)
        assert got.verdict == "pass", got.reason
        assert {f.path: f.verdict for f in got.requests}["stream"] == "note"


def test_a_stream_that_was_asked_for_must_be_asked_of_the_provider() -> None:
    for provider in ("openai", "anthropic"):
        got = _row(_AlwaysStreams(stream=False), "encode_stream", provider)
        assert got.verdict == "fail"
        assert "stream" in [e.path for e in got.diff]


class _Reordering(ReferenceRuntime):
    """The reference's decoding, with the message's blocks passed through `change`."""

    def __init__(self, change: Any) -> None:
        super().__init__()
        self.change = change

    def decode(self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool) -> Any:
        out = super().decode(provider, status, headers, chunks, stream)
        out["message"]["content"] = self.change(out["message"]["content"])
        return out


def _wire_order(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Text first, then thinking, then the rest: the order the Anthropic stream sent them in."""
    text = [b for b in blocks if b["type"] == "text"]
    return text + [b for b in blocks if b["type"] != "text"]


def test_thinking_kept_in_wire_order_reads_as_placed_first() -> None:
    got = _row(_Reordering(_wire_order), "thinking_after_text", "anthropic")
    assert got.verdict == "pass", got.reason
    assert "thinking kept in the order it came" in got.reason
    assert got.actual["message"]["content"][0]["type"] == "text"  # shown as answered


def test_thinking_dropped_or_unsigned_is_still_red() -> None:
    def dropped(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [b for b in _wire_order(blocks) if b["type"] != "thinking"]

    def unsigned(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**b, "signature": None} if b["type"] == "thinking" else b for b in _wire_order(blocks)]

    assert _row(_Reordering(dropped), "thinking_after_text", "anthropic").verdict == "fail"
    got = _row(_Reordering(unsigned), "thinking_after_text", "anthropic")
    assert got.verdict == "fail"
    assert "message.content[0].signature" in [e.path for e in got.diff]


def test_text_and_calls_swapped_are_still_red() -> None:
    def swapped(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [blocks[0], blocks[2], blocks[1]]

    assert _row(_Reordering(swapped), "thinking_after_text", "anthropic").verdict == "fail"


class _PlainStop(ReferenceRuntime):
    """Reports `stop` for a message of calls, as the wire's own reason says on Gemini."""

    def decode(self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool) -> Any:
        out = super().decode(provider, status, headers, chunks, stream)
        out["message"]["stop_reason"] = "stop"
        return out


def test_a_plain_stop_on_calls_is_the_providers_own_where_it_has_no_other() -> None:
    for provider in ("gemini", "ollama"):
        got = _row(_PlainStop(), "tool_call_stream", provider)
        assert got.verdict == "pass", (provider, got.reason)
        assert "is the provider's own" in got.reason


def test_a_plain_stop_on_calls_is_wrong_where_the_provider_says_tool_use() -> None:
    for provider in ("openai", "anthropic"):
        got = _row(_PlainStop(), "tool_call_stream", provider)
        assert got.verdict == "fail"
        assert [(e.path, e.kind) for e in got.diff] == [("message.stop_reason", "wrong")]


class _Signing(ReferenceRuntime):
    """Sends `signature` in place of the skip sentinel on Gemini's unsigned history calls."""

    def __init__(self, signature: str) -> None:
        super().__init__()
        self.signature = signature

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        body = super().encode(conversation, provider)
        for content in body["contents"]:
            for part in content["parts"]:
                if "thoughtSignature" in part:
                    part["thoughtSignature"] = self.signature
        return body


def test_the_skip_sentinel_as_the_sdks_send_it_is_the_sentinel() -> None:
    # base64 of b"skip_thought_signature_validator", as google-genai sends the bytes it holds
    got = _row(_Signing("c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="), "gemini3_unsigned_call_history", "gemini")
    assert got.verdict == "pass", got.reason
    other = _row(_Signing("bm90X2Ffc2VudGluZWw="), "gemini3_unsigned_call_history", "gemini")
    assert other.verdict == "fail"


class _KeepsOneResult(ReferenceRuntime):
    """Answers a turn of parallel calls with its first function response only.

    (Sending the responses and the next user text as two consecutive user contents is no such
    mutant: real gemini-2.5-flash traffic does it and gets 200, and Gemini reads them as one turn.)"""

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        body = super().encode(conversation, provider)
        last = body["contents"][-1]
        responses = [p for p in last["parts"] if "functionResponse" in p]
        last["parts"] = [p for p in last["parts"] if p is responses[0] or "functionResponse" not in p]
        return body


def test_a_broken_provider_rule_is_a_finding_named_by_the_rule() -> None:
    got = _row(_KeepsOneResult(), "gemini3_unsigned_call_history", "gemini")
    assert got.verdict == "fail"
    rules = [f for f in got.requests if f.verdict == "fail" and "(response_count)" in f.fact]
    assert rules and rules[0].path == "contents[2]"
    assert "1 function response part(s) for 2 function call part(s)" in got.reason
    assert "gemini-cli/issues/4217" in rules[0].source


class _MarksCacheBreakpoints(ReferenceRuntime):
    """Marks the system prompt, the tools and the last user block as Anthropic cache breakpoints."""

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        body = super().encode(conversation, provider)
        mark = {"cache_control": {"type": "ephemeral"}}
        if isinstance(body.get("system"), str):
            body["system"] = [{"type": "text", "text": body["system"], **mark}]
        for tool in body.get("tools", [])[-1:]:
            tool.update(mark)
        last = body["messages"][-1]
        if isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"]}]
        last["content"][-1].update(mark)
        return body


def test_cache_breakpoints_are_notes_on_anthropic() -> None:
    got = _row(_MarksCacheBreakpoints(), "encode_tool_history", "anthropic")
    assert got.verdict == "pass", got.reason
    notes = [f for f in got.requests if f.path.endswith("cache_control")]
    assert notes and all(f.verdict == "note" and "prompt-caching" in f.fact for f in notes)


def test_a_cache_breakpoint_is_no_licence_to_change_the_block() -> None:
    class _Changes(_MarksCacheBreakpoints):
        def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
            body = super().encode(conversation, provider)
            body["messages"][-1]["content"][-1]["text"] += "!"
            return body

    got = _row(_Changes(), "encode_tool_history", "anthropic")
    assert got.verdict == "fail"
    assert [e.path for e in got.diff] == ["messages[2].content[1].text"]


class _ReadsOnlyStreams(_AlwaysStreams):
    """Asks for a stream on every request and reads nothing else (as pi-ai does)."""

    def decode(self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool) -> Any:
        if status < 400 and not headers.get("content-type", "").startswith("text/event-stream"):
            return {"error": {"kind": "stream_interrupted", "message": "not a stream"}}
        return super().decode(provider, status, headers, chunks, stream)


def test_a_runtime_asking_for_a_stream_reads_the_recorded_answer_as_one() -> None:
    for provider in ("openai", "anthropic"):
        for scenario in ("text_basic", "tool_call_single", "usage_cached_tokens"):
            got = _row(_ReadsOnlyStreams(), scenario, provider)
            assert got.verdict == "pass", (scenario, provider, got.reason)
            assert {f.path: f.verdict for f in got.requests}.get("stream") == "note"


def test_a_runtime_asking_for_no_stream_still_gets_the_recorded_body() -> None:
    got = _row(_ReadsOnlyStreams(stream=False), "text_basic", "anthropic")
    assert got.verdict == "fail"  # it asked for one body and cannot read it: its own defect
