"""Compaction through the turn loop over a scripted transport, session files and crash recovery."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.capabilities import ModelInfo, get_profile
from conformance.exceptions import UnsupportedFeatureError
from conformance.model import Conversation, Message, UserMessage
from conformance.runtime.clock import FakeClock
from conformance.runtime.context.compact import CompactSettings, Summarizer, compact_messages, turn_compactor
from conformance.runtime.context.compat import check_features, fold_system
from conformance.runtime.context.session import compact_session, recover_session
from conformance.runtime.context.trim import TrimSettings
from conformance.runtime.retry import RetryPolicy
from conformance.runtime.transcripts import load_transcript, save_transcript
from conformance.runtime.turn import run_turn
from tests.runtime.builders import assistant, call, result, system, user

OVERFLOW = {
    "error": {
        "message": "maximum context length exceeded",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }
}


def ok(text: str) -> httpx.Response:
    body = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}
    return httpx.Response(200, json=body)


class Script:
    def __init__(self, *responses: httpx.Response) -> None:
        self.responses = list(responses)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        return self.responses.pop(0)


def via(script: Script, **policy: Any) -> Summarizer:
    return Summarizer(
        get_profile("openai"),
        httpx.MockTransport(script),
        FakeClock(),
        random.Random(1),
        keys="k",
        policy=RetryPolicy(**policy),
    )


SESSION: list[Message] = [
    system("sys"),
    user("old question"),
    assistant(call("c1", "read")),
    result("c1", "old result", name="read"),
    assistant("old answer"),
    user("new question"),
    assistant(call("c2", "read")),
    result("c2", "new result", name="read"),
]


def test_overflow_shrinks_until_the_bound_then_a_typed_error() -> None:
    script = Script(*[httpx.Response(400, json=OVERFLOW) for _ in range(3)])
    settings = CompactSettings(summary_input_tokens=64, max_shrinks=2)
    out = asyncio.run(compact_messages(SESSION, settings, None, via(script)))
    assert out.error is not None and out.error.kind == "summary_input_too_large"
    assert len(script.bodies) == 3  # the first try and two shrinks, no more
    assert [s["count"] for s in out.trace if s["action"] == "shrink"] == [32, 16]
    assert out.messages == SESSION


def test_a_chunk_carries_the_summary_so_far() -> None:
    script = Script(ok("first"), ok("second"), ok("third"), ok("fourth"))
    out = asyncio.run(compact_messages(SESSION, CompactSettings(summary_input_tokens=8), None, via(script)))
    assert out.error is None and out.summary == "fourth"
    assert "Summary so far:\nfirst" in script.bodies[1]["messages"][1]["content"]


def test_session_compaction_leaves_no_backup(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    save_transcript(path, SESSION)
    done = asyncio.run(compact_session(path, CompactSettings(), None, via(Script(ok("sum")))))
    assert done.error is None and done.summarized == 4
    messages = load_transcript(path).messages
    assert len(messages) == 5 and isinstance(messages[1], UserMessage)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == ["s.jsonl"]


def test_a_writer_that_crashes_leaves_a_recoverable_state(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    save_transcript(path, SESSION)

    def crash(target: Path, messages: Any) -> None:
        (tmp_path / ".s.jsonl.abc.tmp").write_text('{"role":"us')
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(compact_session(path, CompactSettings(), None, via(Script(ok("sum"))), writer=crash))
    assert (tmp_path / "s.jsonl.bak").is_file()
    actions = recover_session(path)
    assert {a["action"] for a in actions} == {"remove_temp", "remove_backup"}
    assert load_transcript(path).messages == SESSION


def test_overflow_compacts_once_then_gives_up() -> None:
    conv = Conversation(messages=SESSION)
    script = Script(httpx.Response(400, json=OVERFLOW), ok("sum"), httpx.Response(400, json=OVERFLOW))
    v = via(script)
    turn = asyncio.run(
        run_turn(
            conv,
            v.profile,
            transport=v.transport,
            clock=v.clock,
            rng=v.rng,
            keys="k",
            compactor=turn_compactor(CompactSettings(threshold=1.0), v),
        )
    )
    assert [s.action for s in turn.trace] == ["send", "compact", "send", "give_up"]
    assert turn.error is not None and turn.error.kind == "context_overflow"
    assert len(script.bodies) == 3


def test_proxy_mode_from_the_start_sends_text_turns_without_tools() -> None:
    conv = Conversation.model_validate(
        {
            "messages": [m.model_dump() for m in SESSION],
            "tools": [{"name": "read", "parameters": {"type": "object", "properties": {}}}],
        }
    )
    script = Script(ok("fine"))
    v = via(script)
    turn = asyncio.run(
        run_turn(conv, v.profile, transport=v.transport, clock=v.clock, rng=v.rng, keys="k", gemini_proxy=True)
    )
    assert turn.error is None
    body = script.bodies[0]
    assert "tools" not in body
    assert {m["role"] for m in body["messages"]} <= {"system", "user", "assistant"}
    assert all(isinstance(m["content"], str) for m in body["messages"])


def test_streaming_and_tools_the_model_lacks_are_typed_errors() -> None:
    profile = get_profile("openai").model_copy(
        update={"models": {"m": ModelInfo(context_window=1000, max_output=100, streaming=False, tool_use=False)}}
    )
    with pytest.raises(UnsupportedFeatureError, match="does not stream"):
        check_features(
            Conversation.model_validate({"model": "m", "messages": [], "options": {"stream": True}}), profile
        )
    with pytest.raises(UnsupportedFeatureError, match="takes no tools"):
        check_features(Conversation.model_validate({"model": "m", "messages": [], "tools": [{"name": "t"}]}), profile)


def test_a_system_prompt_without_a_user_turn_becomes_one() -> None:
    profile = get_profile("openai")
    out, n = fold_system([system("rules"), assistant("hi")], profile, "o1-mini")
    assert n == 1 and isinstance(out[0], UserMessage) and out[0].content[0].text == "rules"  # type: ignore[union-attr]


def test_proxy_mode_is_tried_once() -> None:
    rejected = {"error": {"message": "Please use a valid role: user, model.", "type": "invalid_request_error"}}
    conv = Conversation(messages=SESSION)
    script = Script(httpx.Response(400, json=rejected), httpx.Response(400, json=rejected))
    v = via(script)
    turn = asyncio.run(run_turn(conv, v.profile, transport=v.transport, clock=v.clock, rng=v.rng, keys="k"))
    assert [s.action for s in turn.trace] == ["send", "flatten", "send", "give_up"]
    assert turn.error is not None and turn.error.kind == "invalid_request"


def test_trimming_in_the_turn_loop_then_no_compaction_below_threshold() -> None:
    long_session = [*SESSION[:3], result("c1", "r" * 4000, name="read"), *SESSION[4:]]
    script = Script(ok("fine"))
    v = via(script)
    compactor = turn_compactor(CompactSettings(threshold=1.0), v, TrimSettings(max_history_tokens=300, caps=(100,)))
    turn = asyncio.run(
        run_turn(
            Conversation(messages=long_session),
            v.profile,
            transport=v.transport,
            clock=v.clock,
            rng=v.rng,
            keys="k",
            compactor=compactor,
        )
    )
    assert [s.action for s in turn.trace] == ["trim", "send", "done"]
    tool = next(m for m in script.bodies[0]["messages"] if m["role"] == "tool")
    assert tool["content"] == "r" * 100 + "[truncated 3900 chars]"
