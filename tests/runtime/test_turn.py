"""The turn loop over a scripted transport: retries, compression on both paths, rotation, and
no key in any trace, error or log."""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from conformance.capabilities import get_profile
from conformance.model import Conversation
from conformance.runtime.auth import AuthPool
from conformance.runtime.clock import FakeClock
from conformance.runtime.retry import RetryPolicy
from conformance.runtime.turn import run_turn

OK_JSON = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "done"}}]}
OK_SSE = b'data: {"choices":[{"index":0,"delta":{"content":"done"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
REJECTED = {
    "error": {
        "code": 400,
        "message": "Provider returned error",
        "metadata": {"provider_name": "Google", "raw": "ERROR"},
    }
}
CONV = Conversation.model_validate(
    {
        "messages": [
            {"role": "user", "content": "Read the log."},
            {"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "read", "arguments": {}}]},
            {"role": "tool_result", "tool_call_id": "c1", "content": "L" * 2000},
        ]
    }
)


class Script:
    def __init__(self, *responses: httpx.Response) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.responses.pop(0)

    def tool_contents(self, n: int) -> list[str]:
        body = json.loads(self.requests[n].content)
        return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def actions(trace: list) -> list[str]:  # type: ignore[type-arg]
    return [s.action for s in trace]


async def test_429_then_success_waits_on_the_fake_clock() -> None:
    script = Script(
        httpx.Response(
            429, headers={"retry-after": "30"}, json={"error": {"message": "slow", "code": "rate_limit_exceeded"}}
        ),
        httpx.Response(200, json=OK_JSON),
    )
    clock = FakeClock()
    out = await run_turn(
        CONV, get_profile("openai"), transport=httpx.MockTransport(script), clock=clock, rng=random.Random(1)
    )
    assert out.message is not None and out.error is None
    assert actions(out.trace) == ["send", "wait", "send", "done"]
    assert clock.sleeps == [30.0] and clock.now() == 30.0


@pytest.mark.parametrize("stream", [False, True])
async def test_rejected_payload_is_retried_once_compressed_on_both_paths(stream: bool) -> None:
    ok = (
        httpx.Response(200, headers={"content-type": "text/event-stream"}, content=OK_SSE)
        if stream
        else httpx.Response(200, json=OK_JSON)
    )
    script = Script(httpx.Response(400, json=REJECTED), ok)
    conv = CONV.model_copy(update={"options": CONV.options.model_copy(update={"stream": stream})})
    out = await run_turn(
        conv, get_profile("openrouter"), transport=httpx.MockTransport(script), clock=FakeClock(), rng=random.Random(1)
    )
    assert out.message is not None
    assert actions(out.trace) == ["send", "compress", "send", "done"]
    assert script.tool_contents(0) == ["L" * 2000]
    assert script.tool_contents(1) == ["L" * 512 + "[truncated 1488 chars]"]


async def test_compression_happens_only_once() -> None:
    script = Script(httpx.Response(400, json=REJECTED), httpx.Response(400, json=REJECTED))
    out = await run_turn(
        CONV, get_profile("openrouter"), transport=httpx.MockTransport(script), clock=FakeClock(), rng=random.Random(1)
    )
    assert out.error is not None and out.error.provider_code == "provider_rejected"
    assert actions(out.trace) == ["send", "compress", "send", "give_up"]


async def test_overloaded_twice_then_success() -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    script = Script(
        httpx.Response(529, json=overloaded),
        httpx.Response(529, json=overloaded),
        httpx.Response(
            200,
            json={
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        ),
    )
    clock = FakeClock()
    policy = RetryPolicy(jitter=0.0)
    out = await run_turn(
        CONV,
        get_profile("anthropic"),
        transport=httpx.MockTransport(script),
        clock=clock,
        rng=random.Random(1),
        policy=policy,
    )
    assert out.message is not None and clock.sleeps == [1.0, 2.0]


async def test_keys_never_reach_trace_errors_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    secret = "sk-proj-CANARYcanaryCANARY0123456789"
    body = {"error": {"message": f"Incorrect API key provided: {secret}.", "code": "invalid_api_key"}}
    script = Script(httpx.Response(401, json=body))
    out = await run_turn(
        CONV,
        get_profile("openai"),
        transport=httpx.MockTransport(script),
        clock=FakeClock(),
        rng=random.Random(1),
        keys=AuthPool.of([secret]),
    )
    assert script.requests[0].headers["authorization"] == f"Bearer {secret}"
    assert out.error is not None and out.error.kind == "auth"
    dumped = json.dumps(out.to_json())
    assert secret not in dumped and "CANARY" not in dumped
    assert secret not in caplog.text


TOOLS_CONV = Conversation.model_validate(
    {
        "messages": [{"role": "user", "content": "Weather in Rome?"}],
        "tools": [
            {
                "name": "get_weather",
                "description": "Weather.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            }
        ],
    }
)


def proxy_error(message: str) -> httpx.Response:
    return httpx.Response(400, json={"error": {"message": message, "type": "invalid_request_error", "code": None}})


async def test_gemini_proxy_tool_declarations_are_retried_in_native_shapes() -> None:
    script = Script(
        proxy_error("Invalid JSON payload received. Unknown name \"tool_type\" at 'tools[0]': Cannot find field."),
        proxy_error("Invalid value at 'tools[0]' (oneof), one_of field is not set"),
        httpx.Response(200, json=OK_JSON),
    )
    profile = get_profile("openai-compatible")
    out = await run_turn(
        TOOLS_CONV, profile, transport=httpx.MockTransport(script), clock=FakeClock(), rng=random.Random(1)
    )
    assert out.message is not None
    assert actions(out.trace) == ["send", "reshape_tools", "send", "reshape_tools", "send", "done"]
    shapes = [json.loads(r.content)["tools"] for r in script.requests]
    assert shapes[0][0]["type"] == "function"
    declaration = {
        "name": "get_weather",
        "description": "Weather.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    assert shapes[1] == [{"function_declarations": [declaration]}]
    assert shapes[2] == [{"functionDeclarations": [declaration]}]


async def test_continuation_without_tools_option() -> None:
    conv = TOOLS_CONV.model_copy(
        update={
            "messages": [
                *TOOLS_CONV.messages,
                *Conversation.model_validate(
                    {
                        "messages": [
                            {
                                "role": "assistant",
                                "content": [
                                    {
                                        "type": "tool_call",
                                        "id": "c1",
                                        "name": "get_weather",
                                        "arguments": {"city": "Rome"},
                                    }
                                ],
                            },
                            {"role": "tool_result", "tool_call_id": "c1", "content": "21C"},
                        ]
                    }
                ).messages,
            ]
        }
    )
    script = Script(httpx.Response(200, json=OK_JSON))
    await run_turn(
        conv,
        get_profile("openai-compatible"),
        transport=httpx.MockTransport(script),
        clock=FakeClock(),
        rng=random.Random(1),
        continuation_without_tools=True,
    )
    body = json.loads(script.requests[0].content)
    assert "tools" not in body and body["tool_choice"] == "none"


ANTHROPIC_MIDSTREAM_401 = (
    b"event: message_start\n"
    b'data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",'
    b'"model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":14,"output_tokens":1}}}\n\n'
    b"event: content_block_start\n"
    b'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
    b"event: content_block_delta\n"
    b'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Soft rain on the roof"}}\n\n'
    b"event: error\n"
    b'data: {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}\n\n'
)
ANTHROPIC_OK = {
    "type": "message",
    "role": "assistant",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
HAIKU = Conversation.model_validate(
    {"messages": [{"role": "user", "content": "Write a haiku about rain."}], "options": {"stream": True}}
)


def steps(trace: list) -> list[dict[str, object]]:  # type: ignore[type-arg]
    return [s.model_dump(exclude_none=True, exclude={"reason"}) for s in trace]


async def test_401_mid_stream_keeps_the_partial_and_the_next_turn_uses_the_other_profile() -> None:
    pool = AuthPool.of(["sk-ant-first-0000000000", "sk-ant-second-000000000"])
    script = Script(
        httpx.Response(200, headers={"content-type": "text/event-stream"}, content=ANTHROPIC_MIDSTREAM_401),
        httpx.Response(200, json=ANTHROPIC_OK),
    )
    transport = httpx.MockTransport(script)
    first = await run_turn(
        HAIKU, get_profile("anthropic"), transport=transport, clock=FakeClock(), rng=random.Random(1), keys=pool
    )
    assert first.error is not None and first.error.kind == "auth"
    assert first.message is not None and first.message.content[0].text == "Soft rain on the roof"  # type: ignore[union-attr]
    assert steps(first.trace) == [
        {"action": "send", "attempt": 1, "profile": 0},
        {"action": "refresh", "profile": 0, "kind": "auth"},
    ]
    assert len(script.requests) == 1  # no retry inside the turn
    second = await run_turn(
        HAIKU,
        get_profile("anthropic"),
        transport=transport,
        clock=FakeClock(),
        rng=random.Random(1),
        keys=pool,
        stream=False,
    )
    assert second.error is None and second.message is not None
    assert steps(second.trace)[0] == {"action": "send", "attempt": 1, "profile": 1}
    assert script.requests[1].headers["x-api-key"] == "sk-ant-second-000000000"
    assert json.loads(script.requests[1].content).get("stream") in (None, False)


def rate_limited(seconds: int) -> httpx.Response:
    return httpx.Response(
        429, headers={"retry-after": str(seconds)}, json={"error": {"message": "slow", "code": "rate_limit_exceeded"}}
    )


async def test_all_profiles_cooling_down_waits_for_the_shortest() -> None:
    script = Script(rate_limited(30), rate_limited(10), httpx.Response(200, json=OK_JSON))
    clock = FakeClock()
    out = await run_turn(
        CONV,
        get_profile("openai"),
        transport=httpx.MockTransport(script),
        clock=clock,
        rng=random.Random(1),
        keys=AuthPool.of(["sk-a-0000000000000000", "sk-b-0000000000000000"]),
    )
    assert out.message is not None
    assert steps(out.trace) == [
        {"action": "send", "attempt": 1, "profile": 0},
        {"action": "rotate", "profile": 0, "seconds": 30.0, "kind": "rate_limited"},
        {"action": "send", "attempt": 2, "profile": 1},
        {"action": "rotate", "profile": 1, "seconds": 10.0, "kind": "rate_limited"},
        {"action": "wait", "seconds": 10.0},
        {"action": "send", "attempt": 3, "profile": 1},
        {"action": "done", "attempt": 3, "status": 200},
    ]
    assert [r.headers["authorization"].removeprefix("Bearer ")[:4] for r in script.requests] == ["sk-a", "sk-b", "sk-b"]
    assert clock.now() == 10.0


async def test_the_429_wait_is_instant_in_wall_time() -> None:
    script = Script(rate_limited(30), httpx.Response(200, json=OK_JSON))
    clock = FakeClock()
    start = time.monotonic()
    out = await run_turn(
        CONV,
        get_profile("openai"),
        transport=httpx.MockTransport(script),
        clock=clock,
        rng=random.Random(1),
        keys="sk-single-key-000000000",
    )
    assert time.monotonic() - start < 1.0 and clock.now() == 30.0
    assert steps(out.trace)[1] == {"action": "wait", "seconds": 30.0, "kind": "rate_limited"}
    assert out.to_json()["trace"][1] == {
        "action": "wait",
        "seconds": 30.0,
        "kind": "rate_limited",
        "reason": "provider's retry hint",
    }


async def test_a_connection_error_is_retried_like_a_server_error() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(200, json=OK_JSON)

    clock = FakeClock()
    out = await run_turn(
        CONV,
        get_profile("openai"),
        transport=httpx.MockTransport(handler),
        clock=clock,
        rng=random.Random(1),
        policy=RetryPolicy(jitter=0.0),
    )
    assert out.message is not None and actions(out.trace) == ["send", "wait", "send", "done"]
    assert out.trace[1].kind == "server" and clock.sleeps == [1.0]


@pytest.mark.parametrize(
    ("failure", "kind"), [(httpx.RemoteProtocolError, "stream_interrupted"), (httpx.ReadTimeout, "timeout")]
)
async def test_a_stream_that_breaks_keeps_its_partial_and_is_retried(failure: type[Exception], kind: str) -> None:
    first_chunk = b'data: {"choices":[{"index":0,"delta":{"content":"half"}}]}\n\n'

    async def broken() -> AsyncIterator[bytes]:
        yield first_chunk
        raise failure("connection lost")

    def streamed(content: Any) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=content)

    once = Script(streamed(broken()))
    out = await run_turn(
        CONV,
        get_profile("openai"),
        transport=httpx.MockTransport(once),
        clock=FakeClock(),
        rng=random.Random(1),
        policy=RetryPolicy(max_attempts=1),
        stream=True,
    )
    assert out.error is not None and out.error.kind == kind and out.error.status == 200
    assert out.message is not None and out.message.content[0].text == "half"  # type: ignore[union-attr]
    assert out.message.error == out.error and out.message.stop_reason == "error"
    assert actions(out.trace) == ["send", "give_up"]
    twice = Script(streamed(broken()), streamed(OK_SSE))
    retried = await run_turn(
        CONV,
        get_profile("openai"),
        transport=httpx.MockTransport(twice),
        clock=FakeClock(),
        rng=random.Random(1),
        stream=True,
    )
    assert retried.message is not None and retried.error is None
    assert retried.message.content[0].text == "done"  # type: ignore[union-attr]  # a fresh accumulator
    assert [s.kind for s in retried.trace if s.action == "wait"] == [kind]


async def test_a_query_key_never_reaches_the_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore"):  # a library imported earlier in the process (litellm) may quiet them
        caplog.set_level(logging.DEBUG, logger=name)
    secret = "AIzaSyCANARY-canary-0123456789abcdefgh"
    gemini_ok = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    }
    script = Script(httpx.Response(200, json=gemini_ok))
    profile = get_profile("gemini").model_copy(update={"auth_style": "query-key"})
    out = await run_turn(
        HAIKU,
        profile,
        transport=httpx.MockTransport(script),
        clock=FakeClock(),
        rng=random.Random(1),
        keys=secret,
        stream=False,
    )
    assert out.message is not None
    assert script.requests[0].url.params["key"] == secret
    assert "HTTP Request" in caplog.text and secret not in caplog.text
    assert secret not in json.dumps(out.to_json())
