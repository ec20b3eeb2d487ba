"""The turn loop over a scripted transport: retries, compression on both paths, rotation, and
no key in any trace, error or log."""

from __future__ import annotations

import json
import logging
import random

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
