"""Stream-decoding benchmark: our decode + accumulate against a floor and the official SDKs.

Generates a 20,000-event OpenAI chat stream and a 20,000-event Anthropic stream (text deltas with
multibyte characters, interleaved tool-call argument fragments, usage), then times in this one
process, on the same bytes fed in 16 KiB chunks:

- floor: split the body into lines and `orjson.loads` every `data:` payload (no semantics);
- ours: `conformance` SSE decoding + the dialect's accumulator, to the final message, building
  every stream event on the way (`events`), and as the harness and runtime run it, with only the
  final message wanted (`message`: `codec.stream(profile, events=False)`);
- sdk: the official SDK parsing the same bytes offline (through its `httpx2` client and a mock
  transport) and accumulating its final message.

Prints MB/s medians over the repeats and the ratios to the floor. Run:

    python benchmarks/stream_decode.py [--events 20000] [--repeat 11]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import httpx2
import orjson

from conformance.capabilities import get_profile
from conformance.codecs import codec_for

CHUNK = 16 * 1024


def openai_stream(events: int) -> bytes:
    out: list[bytes] = []
    base = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1763800000,
        "model": "gpt-4.1-mini",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
        payload = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], "usage": None}
        out.append(b"data: " + orjson.dumps(payload) + b"\n\n")

    chunk({"role": "assistant", "content": ""})
    text_events = events // 2
    for i in range(text_events):
        chunk({"content": f"word{i} café ☕ "})
    calls = 2
    for c in range(calls):
        chunk(
            {
                "tool_calls": [
                    {
                        "index": c,
                        "id": f"call_{c:024d}",
                        "type": "function",
                        "function": {"name": "f", "arguments": ""},
                    }
                ]
            }
        )
    remaining = events - text_events - calls - 3
    out_args: list[list[str]] = [['{"items": ['], ['{"items": [']]
    for i in range(remaining):
        c = i % calls
        frag = f'"v{i}", '
        out_args[c].append(frag)
        chunk({"tool_calls": [{"index": c, "function": {"arguments": frag}}]})
    for c in range(calls):
        chunk({"tool_calls": [{"index": c, "function": {"arguments": '"end"]}'}}]})
    chunk({}, "tool_calls")
    usage = {"prompt_tokens": 120, "completion_tokens": events, "total_tokens": 120 + events}
    out.append(b"data: " + orjson.dumps({**base, "choices": [], "usage": usage}) + b"\n\n")
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def anthropic_stream(events: int) -> bytes:
    out: list[bytes] = []

    def ev(name: str, data: dict[str, Any]) -> None:
        out.append(b"event: " + name.encode() + b"\ndata: " + orjson.dumps({"type": name, **data}) + b"\n\n")

    ev(
        "message_start",
        {
            "message": {
                "id": "msg_bench",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 120, "output_tokens": 1},
            }
        },
    )
    ev("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
    text_events = events // 2
    for i in range(text_events):
        ev("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": f"word{i} café ☕ "}})
    ev("content_block_stop", {"index": 0})
    ev(
        "content_block_start",
        {"index": 1, "content_block": {"type": "tool_use", "id": "toolu_bench", "name": "f", "input": {}}},
    )
    remaining = events - text_events - 7
    ev(
        "content_block_delta",
        {"index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"items": ['}},
    )
    for i in range(remaining):
        ev(
            "content_block_delta",
            {"index": 1, "delta": {"type": "input_json_delta", "partial_json": f'"v{i}", '}},
        )
    ev("content_block_delta", {"index": 1, "delta": {"type": "input_json_delta", "partial_json": '"end"]}'}})
    ev("content_block_stop", {"index": 1})
    ev(
        "message_delta",
        {"delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": events}},
    )
    ev("message_stop", {})
    return b"".join(out)


def chunks_of(body: bytes) -> list[bytes]:
    return [body[i : i + CHUNK] for i in range(0, len(body), CHUNK)]


def floor(body: bytes) -> int:
    n = 0
    for line in body.splitlines():
        if line.startswith(b"data: ") and line != b"data: [DONE]":
            orjson.loads(line[6:])
            n += 1
    return n


def ours(provider: str, *, events: bool) -> Callable[[bytes], Any]:
    profile = get_profile(provider)
    codec = codec_for(profile)

    def run(body: bytes) -> Any:
        acc = codec.stream(profile, events=events)
        for chunk in chunks_of(body):
            acc.feed(chunk)
        return acc.finish()

    return run


def sdk_openai(body: bytes) -> Any:
    import openai
    from openai.lib.streaming.chat import ChatCompletionStreamState

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=chunks_of(body))

    client = openai.OpenAI(api_key="bench", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    state = ChatCompletionStreamState()
    for chunk in client.chat.completions.create(model="gpt-4.1-mini", messages=[], stream=True):
        state.handle_chunk(chunk)
    return state.get_final_completion()


def sdk_anthropic(body: bytes) -> Any:
    import anthropic

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=chunks_of(body))

    client = anthropic.Anthropic(api_key="bench", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    with client.messages.stream(model="claude-sonnet-4-6", max_tokens=10, messages=[]) as stream:
        return stream.get_final_message()


def medians_mbps(fns: list[Callable[[bytes], Any]], body: bytes, repeat: int) -> list[float]:
    """MB/s medians, the functions timed in turn within each repeat so they share the machine's noise."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, times, strict=True):
            start = time.perf_counter()
            fn(body)
            out.append(time.perf_counter() - start)
    return [len(body) / statistics.median(t) / 1e6 for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
    cases: list[tuple[str, bytes, Callable[[bytes], Any]]] = [
        ("openai", openai_stream(args.events), sdk_openai),
        ("anthropic", anthropic_stream(args.events), sdk_anthropic),
    ]
    print(
        f"{'stream':<10} {'MB':>5} {'floor MB/s':>10} {'events MB/s':>11} {'message MB/s':>12} {'sdk MB/s':>8}"
        f" {'events/floor':>12} {'message/floor':>13} {'events/sdk':>10}"
    )
    for name, body, sdk in cases:
        with_events, message_only = ours(name, events=True), ours(name, events=False)
        with_events(body)  # warm up imports and caches
        f, e, m = medians_mbps([floor, with_events, message_only], body, args.repeat)
        (s,) = medians_mbps([sdk], body, max(3, args.repeat // 2))
        print(
            f"{name:<10} {len(body) / 1e6:>5.2f} {f:>10.1f} {e:>11.1f} {m:>12.1f} {s:>8.1f}"
            f" {e / f:>11.2f}x {m / f:>12.2f}x {e / s:>9.1f}x"
        )


if __name__ == "__main__":
    main()
