"""`conformance lint --realism`: an authored shape no real recording shows is found, with its
cassette; one whose cassette cites a source is accepted; the bundled columns stay at the threshold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.exceptions import CassetteError
from conformance.harness import realism
from conformance.replay.cassette import Cassette, Interaction, RecordedRequest, RecordedResponse, save_cassette

URI = "https://api.openai.com/v1/chat/completions"
REAL = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
}


ORIGIN = {"source_repo": "example/project", "source_path": "t.yaml", "commit": "0" * 40, "license": "MIT"}
"""Where a catalog entry's recording comes from (every entry names it)."""


def _cassette(path: Path, body: dict[str, object], meta: dict[str, object], status: int = 200) -> None:
    request = RecordedRequest("POST", URI, b'{"model":"gpt-4o","messages":[]}', {})
    response = RecordedResponse(status, json.dumps(body).encode(), {"content-type": ["application/json"]})
    path.parent.mkdir(parents=True, exist_ok=True)
    save_cassette(Cassette(path, [Interaction(request, response)], meta), path)


def _corpus(root: Path) -> Path:
    corpus = root / "corpus"
    _cassette(corpus / "openai/chat_completions/real.yaml", REAL, {})
    entry = {"path": "openai/chat_completions/real.yaml", "provider": "openai", "api": "chat_completions", **ORIGIN}
    (corpus / "catalog.json").write_text(json.dumps([entry]))
    return corpus


AUTHORED = {"source": "authored from the provider's documented wire format", "authored": "2026-11-27"}


def test_a_planted_unseen_shape_is_found_with_its_cassette(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    same = tmp_path / "cassettes/openai/same.yaml"
    odd = tmp_path / "cassettes/openai/odd.yaml"
    _cassette(same, REAL, AUTHORED)
    planted = {**REAL, "usage": {"input_tokens": 3, "output_tokens": 1}}
    _cassette(odd, planted, AUTHORED)
    [column] = realism.compare(realism.authored_files([tmp_path / "cassettes"]), realism.real_shapes([corpus]))
    unseen = [o for o in column.shapes.values() if o.status == "unseen"]
    assert [(realism.show(o.shape), o.cassettes) for o in unseen] == [
        ("json $.usage {input_tokens,output_tokens}", [str(odd)])
    ]
    assert column.share == pytest.approx(4 / 5) and not column.passes


def test_a_cited_shape_is_accepted_and_an_uncited_cassette_still_counts(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    planted = {**REAL, "usage": {"input_tokens": 3, "output_tokens": 1}}
    source = {"url": "https://example.com/docs/usage", "quote": "usage has input_tokens", "shapes": ["json $.usage"]}
    _cassette(tmp_path / "cassettes/openai/cited.yaml", planted, {**AUTHORED, "sources": [source]})
    [column] = realism.compare(realism.authored_files([tmp_path / "cassettes"]), realism.real_shapes([corpus]))
    assert (column.count("cited"), column.count("unseen"), column.passes) == (1, 0, True)
    # the same shape in a second cassette that cites nothing is unseen again, named alone
    _cassette(tmp_path / "cassettes/openai/bare.yaml", planted, AUTHORED)
    [column] = realism.compare(realism.authored_files([tmp_path / "cassettes"]), realism.real_shapes([corpus]))
    report = realism.to_json([column])["columns"]["openai"]
    assert report["unseen_shapes"] == [
        {
            "shape": "json $.usage {input_tokens,output_tokens}",
            "cassettes": [str(tmp_path / "cassettes/openai/bare.yaml")],
        }
    ]
    # a source that covers other shapes does not cover this one
    source["shapes"] = ["json $.choices"]
    _cassette(tmp_path / "cassettes/openai/bare.yaml", planted, {**AUTHORED, "sources": [source]})
    [column] = realism.compare(realism.authored_files([tmp_path / "cassettes"]), realism.real_shapes([corpus]))
    assert column.count("unseen") == 1


def test_error_status_headers_and_stream_order_are_shapes() -> None:
    shapes = realism.response_shapes(
        429, {"Retry-After": "3"}, b'{"error":{"message":"slow down","type":"rate_limit"}}'
    )
    assert {realism.show(s) for s in shapes} == {
        "error status 429",
        "error headers {retry-after}",
        "error $ {error}",
        "error $.error {message,type}",
    }
    body = b'event: message_start\ndata: {"type":"message_start"}\n\ndata: [DONE]\n\n'
    shown = {realism.show(s) for s in realism.response_shapes(200, {"content-type": "text/event-stream"}, body)}
    assert {
        "sse-order ^ > message_start",
        "sse-order message_start > message:[DONE]",
        "sse-order message:[DONE] > $",
    } <= shown
    cut = {realism.show(s) for s in realism.response_shapes(200, {}, body[:-12], cut=True)}
    assert not any(s.endswith("> $") for s in cut)
    # a JSON body cut in half by a dropped connection is the fault, not a shape; uncut it is text
    half = b'{"id":"chatcmpl-1","object":"chat.compl'
    json_type = {"content-type": "application/json"}
    assert realism.response_shapes(200, json_type, half, cut=True) == set()
    assert {realism.show(s) for s in realism.response_shapes(200, json_type, half)} == {"json $ <text>"}


def test_an_answer_cut_before_a_retry_is_not_judged_but_the_retried_one_is(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    chunk = b'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[]}\n\n'
    request = RecordedRequest("POST", URI, b"{}", {})
    stream = {"content-type": ["text/event-stream"]}
    answers = [RecordedResponse(200, chunk, stream), RecordedResponse(200, chunk + b"data: [DONE]\n\n", stream)]
    path = tmp_path / "cassettes/openai/retried.yaml"
    path.parent.mkdir(parents=True)
    save_cassette(Cassette(path, [Interaction(request, r) for r in answers], AUTHORED), path)
    files, real = realism.authored_files([tmp_path / "cassettes"]), realism.real_shapes([corpus])

    def unseen_order(interrupted: frozenset[str]) -> list[str]:
        [column] = realism.compare(files, real, interrupted=interrupted)
        return sorted(
            realism.show(o.shape) for o in column.shapes.values() if o.status == "unseen" and o.shape[0] == "sse-order"
        )

    assert "sse-order message > $" in unseen_order(frozenset())
    assert unseen_order(frozenset({"retried"})) == [
        "sse-order ^ > message",
        "sse-order message > message:[DONE]",
        "sse-order message:[DONE] > $",
    ]


def test_a_gemini_stream_event_is_the_object_a_whole_response_is(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    uri = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    whole = {"candidates": [{"content": {"parts": [{"text": "Hi"}], "role": "model"}, "finishReason": "STOP"}]}
    request = RecordedRequest("POST", uri, b"{}", {})
    real = RecordedResponse(200, json.dumps(whole).encode(), {"content-type": ["application/json"]})
    save_cassette(Cassette(corpus / "g.yaml", [Interaction(request, real)], {}), corpus / "g.yaml")
    (corpus / "catalog.json").write_text(
        json.dumps([{"path": "g.yaml", "provider": "gemini", "api": "generate_content", **ORIGIN}])
    )
    event = b"data: " + json.dumps(whole).encode() + b"\r\n\r\n"
    streamed = RecordedResponse(200, event, {"content-type": ["text/event-stream"]})
    path = tmp_path / "cassettes/gemini/s.yaml"
    path.parent.mkdir(parents=True)
    save_cassette(Cassette(path, [Interaction(request, streamed)], AUTHORED), path)
    [column] = realism.compare(realism.authored_files([tmp_path / "cassettes"]), realism.real_shapes([corpus]))
    # the event's objects are seen in the whole response; only the stream's order is not
    assert sorted(realism.show(o.shape) for o in column.shapes.values() if o.status == "unseen") == [
        "sse-order ^ > message",
        "sse-order message > $",
    ]


def test_a_responses_lifecycle_event_carries_the_response_a_whole_call_returns() -> None:
    dialect = "openai_responses"
    failed = ("sse:response.failed", "$.response.output[]", "{content,id,role,status,type}")
    whole = ("json", "$.output[]", "{content,id,role,status,type}")
    done = ("sse:response.output_item.done", "$.item", "{content,id,role,status,type}")
    assert (
        realism.same_object(dialect, failed)
        == realism.same_object(dialect, whole)
        == realism.same_object(dialect, done)
    )
    # the event's own envelope and an item still being added are shapes of their own
    assert realism.same_object(dialect, ("sse:response.failed", "$", "{response,sequence_number,type}")) is None
    assert realism.same_object(dialect, ("sse:response.output_item.added", "$.item", "{id,type}")) is None
    assert realism.same_object("openai_chat", whole) is None
    usage = "{completion_tokens,prompt_tokens,total_tokens}"
    assert realism.same_object("openai_chat", ("sse:message", "$.usage", usage)) == ("$.usage", usage)
    # a whole completion's message is no chunk's delta: only tool calls and usage are shared with it
    assert realism.same_object("openai_chat", ("json", "$.choices[].message", "{content,role}")) is None
    line = ("ndjson", "$.message", "{content,role}")
    assert realism.same_object("ollama", line) == realism.same_object("ollama", ("json", "$.message", "{content,role}"))


def test_a_source_without_a_quote_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match=r"quote") as info:
        realism.sources_of({"sources": [{"url": "https://example.com", "quote": " "}]}, "x.yaml")
    assert "meta.sources[0].quote" in str(info.value)


def test_a_column_without_real_recordings_is_authored_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus(tmp_path)
    _cassette(tmp_path / "cassettes/openai/same.yaml", REAL, AUTHORED)
    _cassette(tmp_path / "cassettes/fireworks/any.yaml", REAL, AUTHORED)
    args = ["lint", "--realism", str(tmp_path / "cassettes"), "--corpus", str(corpus), "--root", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "fireworks: authored only" in out and "openai: 100% of 4 shapes" in out
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["columns"]["fireworks"]["authored_only"] and data["columns"]["openai"]["share"] == 1.0


MEASURED = {
    "anthropic": 0.97,
    "azure": 0.92,
    "azure_responses": 0.90,
    "cerebras": 0.93,
    "deepseek": 0.90,
    "fireworks": 0.92,
    "gemini": 0.96,
    "groq": 0.90,
    "huggingface": 0.95,
    "mistral": 0.91,
    "ollama": 0.95,
    "openai": 0.91,
    "openai-compatible": 0.92,
    "openai_responses": 0.94,
    "openrouter": 0.90,
    "openrouter_responses": 0.97,
    "perplexity": 0.94,
    "together": 0.90,
    "vertex": 0.90,
    "xai": 0.92,
    "xai_responses": 0.95,
}
"""The share each bundled column has reached (seen in real traffic or cited): a column holds it, and
one at the threshold stays there. A column that gains real recordings later starts without a floor."""


def test_bundled_columns_keep_their_share_of_shapes_seen_or_cited() -> None:
    root = Path(__file__).resolve().parents[2]
    columns = realism.compare(
        realism.authored_files([root / "cassettes"]),
        realism.real_shapes([root / "corpus"]),
        realism.cut_scenarios(root),
        realism.interrupted_scenarios(root),
    )
    shares = {c.name: c.share for c in columns if c.share is not None}
    fallen = {
        name: round(share, 3)
        for name, share in shares.items()
        if share < min(realism.THRESHOLD, MEASURED.get(name, 0.0))
    }
    assert fallen == {}
    assert {name for name, share in shares.items() if share >= realism.THRESHOLD} >= {
        name for name, floor in MEASURED.items() if floor >= realism.THRESHOLD
    }
