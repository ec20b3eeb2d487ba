"""Each dialect's stream writer (`Codec.restream`) writes the answer its JSON reader reads: every
successful non-streamed answer recorded for a dialect with a writer, re-encoded, reads back through
the dialect's own stream reader to the same outcome; and the stream has the documented form."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import orjson
import pytest

from conformance.capabilities import get_profile, provider_names
from conformance.codecs import codec_for
from conformance.codecs.base import decode_response, is_stream, load_json
from conformance.replay.cassette import load_cassette
from conformance.replay.faults import fault_kinds
from conformance.wire.sse import parse_sse

ROOT = Path(__file__).resolve().parents[2]
WRITTEN = ("openai_chat", "anthropic", "ollama", "gemini", "openai_responses")


def _answers(provider: str) -> list[tuple[str, bytes]]:
    profile = get_profile(provider)
    codec = codec_for(profile)
    out = []
    for path in sorted((ROOT / "cassettes" / provider).glob("*.yaml")):
        cassette = load_cassette(path)
        endings = fault_kinds(cassette.meta, len(cassette.interactions), str(path))
        for it, ending in zip(cassette.interactions, endings, strict=True):
            if ending != "clean_end":
                continue  # a dropped or reset answer is no whole answer to write again
            if urlsplit(it.request.uri).hostname != urlsplit(profile.base_url).hostname:
                continue  # another provider's answer (a turn that fell back to it)
            r = it.response
            if r.status >= 400 or is_stream(codec, r.flat_headers(), it.request.stream_requested()):
                continue
            if decode_response(codec, profile, r.status, r.flat_headers(), r.body).error is not None:
                continue  # an error in a 200 body is answered as recorded, never streamed
            out.append((path.name, r.body))
    return out


@pytest.mark.parametrize(
    "provider", [p for p in provider_names() if get_profile(p).dialect in WRITTEN and (ROOT / "cassettes" / p).is_dir()]
)
def test_a_restreamed_answer_reads_as_the_recorded_one(provider: str) -> None:
    profile = get_profile(provider)
    codec = codec_for(profile)
    assert codec.restream is not None
    answers = _answers(provider)
    assert answers
    asked = {"stream": True, "stream_options": {"include_usage": True}}
    for name, body in answers:
        whole = decode_response(codec, profile, 200, {"content-type": "application/json"}, body)
        stream = codec.restream(load_json(body), asked)
        streamed = decode_response(codec, profile, 200, {"content-type": codec.stream_content_types[0]}, stream)
        assert streamed.to_json() == whole.to_json(), name


def test_responses_events_follow_the_documented_flow() -> None:
    restream = codec_for(get_profile("openai_responses")).restream
    assert restream is not None
    data = _recorded_answer("openai_responses", "empty_arguments_json")
    events = [(e.event, orjson.loads(e.data)) for e in parse_sse(restream(data, {"stream": True}))]
    kinds = [k for k, _ in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert [d["type"] for _, d in events] == kinds  # the `event:` line repeats the type
    assert [d["sequence_number"] for _, d in events] == list(range(len(events)))
    assert events[-1][1]["response"] == data
    added = [d["item"] for k, d in events if k == "response.output_item.added"]
    done = [d["item"] for k, d in events if k == "response.output_item.done"]
    assert done == data["output"] and len(added) == len(done)
    calls = [i for i in added if i["type"] == "function_call"]
    assert calls and all(i["arguments"] == "" for i in calls)
    arguments = [d["arguments"] for k, d in events if k == "response.function_call_arguments.done"]
    assert arguments == [i["arguments"] for i in data["output"] if i["type"] == "function_call"]


def _recorded_answer(provider: str, scenario: str) -> dict[str, object]:
    it = load_cassette(ROOT / "cassettes" / provider / f"{scenario}.yaml").interactions[-1]
    data = load_json(it.response.body)
    assert isinstance(data, dict)
    return data


def test_openai_chunks_end_with_done_and_carry_usage_only_when_asked() -> None:
    restream = codec_for(get_profile("openai")).restream
    assert restream is not None
    data = _recorded_answer("openai", "retry_429_retry_after")
    plain = [e.data for e in parse_sse(restream(data, {"stream": True}))]
    assert plain[-1] == "[DONE]"
    chunks = [orjson.loads(d) for d in plain[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert not any("usage" in c for c in chunks)
    asked = [e.data for e in parse_sse(restream(data, {"stream": True, "stream_options": {"include_usage": True}}))]
    last = orjson.loads(asked[-2])
    assert last["choices"] == [] and last["usage"] == data["usage"]


def test_anthropic_events_follow_the_documented_flow() -> None:
    restream = codec_for(get_profile("anthropic")).restream
    assert restream is not None
    events = [e.event for e in parse_sse(restream(_recorded_answer("anthropic", "retry_429_retry_after"), {}))]
    assert events[0] == "message_start" and events[-2:] == ["message_delta", "message_stop"]
    assert events[1:4] == ["content_block_start", "content_block_delta", "content_block_stop"]
