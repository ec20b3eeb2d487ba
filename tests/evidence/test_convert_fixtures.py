"""Response bodies recorded without their request (the AI SDK's `__fixtures__`) converted to the
corpus form: one interaction, the request the source's test sends, the body served as its test
serves it (or with the event names the provider sends), written out by hand."""

from __future__ import annotations

import json

import pytest

from conformance.evidence.convert import to_corpus_form
from conformance.exceptions import InputError

CHAT_URI = "https://api.mistral.ai/v1/chat/completions"
TEST = {"uri": CHAT_URI, "body": '{"model":"m","messages":[{"role":"user","content":"Hello"}]}'}

JSON_FIXTURE = """{
  "id": "b39",
  "choices": [{"message": {"content": "Ça va"}}]
}
"""

JSON_CORPUS = """version: 1
interactions:
- request:
    method: POST
    uri: https://api.mistral.ai/v1/chat/completions
    body: '{"model":"m","messages":[{"role":"user","content":"Hello"}]}'
    headers: {}
  response:
    status:
      code: 200
      message: ''
    headers:
      content-type:
      - application/json
    body:
      string: '{"id":"b39","choices":[{"message":{"content":"Ça va"}}]}'
"""

CHUNKS_FIXTURE = '{"id":"c1","choices":[{"delta":{"content":"Hi"}}]}\n\n{"id":"c1","choices":[]}\n'

CHUNKS_CORPUS = """version: 1
interactions:
- request:
    method: POST
    uri: https://api.mistral.ai/v1/chat/completions
    body: '{"model":"m","messages":[{"role":"user","content":"Hello"}]}'
    headers: {}
  response:
    status:
      code: 200
      message: ''
    headers:
      content-type:
      - text/event-stream
    body:
      string: |+
        data: {"id":"c1","choices":[{"delta":{"content":"Hi"}}]}

        data: {"id":"c1","choices":[]}

        data: [DONE]

...
"""

NAMED_FIXTURE = '{"type":"message_start","message":{"id":"msg_1"}}\n{"type":"message_stop"}\n'

NAMED_BODY = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1"}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n'


def _response(form: bytes) -> dict[str, object]:
    import yaml

    doc = yaml.safe_load(form)
    assert len(doc["interactions"]) == 1
    response: dict[str, object] = doc["interactions"][0]["response"]
    return response


def test_a_json_body_is_served_compact_with_the_tests_request() -> None:
    assert to_corpus_form(JSON_FIXTURE.encode(), "ai_sdk_json", TEST).decode() == JSON_CORPUS


def test_chunks_are_served_as_data_events_ended_by_done() -> None:
    assert to_corpus_form(CHUNKS_FIXTURE.encode(), "ai_sdk_chunks", TEST).decode() == CHUNKS_CORPUS


def test_chunks_of_a_provider_that_names_its_events_carry_those_names_and_no_done() -> None:
    test = {**TEST, "uri": "https://api.anthropic.com/v1/messages", "event_names": True, "done": False}
    response = _response(to_corpus_form(NAMED_FIXTURE.encode(), "ai_sdk_chunks", test))
    assert response["body"] == {"string": NAMED_BODY}


def test_a_recorded_error_body_keeps_the_status_its_test_serves_it_with() -> None:
    body = json.dumps({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}, indent=2)
    test = {"uri": "https://generativelanguage.googleapis.com/v1beta/models/g:generateContent", "status": 429}
    response = _response(to_corpus_form(body.encode(), "ai_sdk_json", test))
    assert response["status"] == {"code": 429, "message": ""}
    assert response["body"] == {"string": '{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}'}


def test_text_that_holds_line_separators_stays_one_event() -> None:
    line = json.dumps({"choices": [{"delta": {"content": "a\u2028b\x85c\rd"}}]}, ensure_ascii=False)
    response = _response(to_corpus_form((line + "\n").encode(), "ai_sdk_chunks", TEST))
    body = response["body"]
    assert isinstance(body, dict)
    assert body["string"] == f"data: {line}\n\ndata: [DONE]\n\n"


@pytest.mark.parametrize(
    ("data", "fmt", "test", "said"),
    [
        (b"{}", "ai_sdk_json", None, "needs the request its test sends"),
        (b"{}", "ai_sdk_chunks", {"body": None}, "needs the request its test sends"),
        (b"{not json", "ai_sdk_json", TEST, "not a ai_sdk_json recording"),
        (b"not json\n", "ai_sdk_chunks", {**TEST, "event_names": True}, "not a ai_sdk_chunks recording"),
        (b"\xff\xfe", "ai_sdk_chunks", TEST, "not a ai_sdk_chunks recording"),
    ],
)
def test_what_cannot_be_converted_is_an_input_error(
    data: bytes, fmt: str, test: dict[str, object] | None, said: str
) -> None:
    with pytest.raises(InputError, match=said):
        to_corpus_form(data, fmt, test)
