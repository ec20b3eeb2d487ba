"""Recordings in their projects' formats converted to the corpus form: authored originals and the
form the corpus README describes (bodies as text, framing and account headers dropped,
credentials redacted, the status message empty), written out by hand. A body whose trailing
blank line is kept (`|+`) at the end of the file is followed by YAML's document end marker."""

from __future__ import annotations

import base64
import gzip

import pytest

from conformance.evidence.convert import to_corpus_form
from conformance.exceptions import InputError

ANSWER = '{"id":"c1","choices":[{"message":{"content":"Hi"}}]}'

VCRPY = f"""interactions:
- request:
    body: '{{"model":"m","stream":false}}'
    headers:
      Authorization:
      - sk-test-123
      Content-Length:
      - '28'
      Accept:
      - application/json
    method: post
    uri: https://api.example.com/v1/chat/completions
  response:
    body:
      string: !!binary |
        {base64.b64encode(gzip.compress(ANSWER.encode())).decode()}
    headers:
      Content-Encoding:
      - gzip
      Set-Cookie:
      - session=abc
      openai-organization:
      - org-123
      Content-Type:
      - application/json
    status:
      code: 200
      message: OK
version: 1
"""

VCRPY_CORPUS = f"""version: 1
interactions:
- request:
    method: POST
    uri: https://api.example.com/v1/chat/completions
    body: '{{"model":"m","stream":false}}'
    headers:
      accept:
      - application/json
      authorization:
      - Bearer <redacted>
  response:
    status:
      code: 200
      message: ''
    headers:
      content-type:
      - application/json
    body:
      string: '{ANSWER}'
"""

PARSED = """interactions:
- request:
    headers:
      x-api-key:
      - sk-ant-secret
    method: POST
    parsed_body:
      max_tokens: 16
      messages:
      - content: Hi
        role: user
    uri: https://api.anthropic.com/v1/messages
  response:
    headers:
      content-type:
      - text/event-stream
    body:
      string: "event: ping\\ndata: {}\\n\\n"
    status:
      code: 200
      message: OK
version: 1
"""

PARSED_CORPUS = """version: 1
interactions:
- request:
    method: POST
    uri: https://api.anthropic.com/v1/messages
    body: '{"max_tokens": 16, "messages": [{"content": "Hi", "role": "user"}]}'
    headers:
      x-api-key:
      - <redacted>
  response:
    status:
      code: 200
      message: ''
    headers:
      content-type:
      - text/event-stream
    body:
      string: |+
        event: ping
        data: {}

...
"""

RUBY = f"""---
http_interactions:
- request:
    method: get
    uri: https://api.example.com/v1/models
    body:
      encoding: US-ASCII
      string: ''
    headers:
      User-Agent:
      - Faraday
  response:
    status: 404
    headers:
      Request-Id: req_1
      Content-Type: application/json
    body:
      encoding: ASCII-8BIT
      string: !binary |-
        {base64.b64encode(b'{"error":"none"}').decode()}
  recorded_at: 2026-01-01 00:00:00
recorded_with: VCR 6.2.0
"""

RUBY_CORPUS = """version: 1
interactions:
- request:
    method: GET
    uri: https://api.example.com/v1/models
    body: null
    headers:
      user-agent:
      - Faraday
  response:
    status:
      code: 404
      message: ''
    headers:
      content-type:
      - application/json
    body:
      string: '{"error":"none"}'
"""


@pytest.mark.parametrize(
    ("original", "fmt", "expected"),
    [(VCRPY, "vcrpy", VCRPY_CORPUS), (PARSED, "vcrpy", PARSED_CORPUS), (RUBY, "vcr_r_ruby", RUBY_CORPUS)],
    ids=["vcrpy-gzip", "vcrpy-parsed-body", "ruby-vcr"],
)
def test_a_recording_is_converted_to_the_corpus_form(original: str, fmt: str, expected: str) -> None:
    assert to_corpus_form(original.encode(), fmt).decode() == expected


def test_the_corpus_form_converts_to_itself() -> None:
    assert to_corpus_form(VCRPY_CORPUS.encode(), "vcrpy").decode() == VCRPY_CORPUS


@pytest.mark.parametrize(
    ("data", "fmt", "said"),
    [
        (b"interactions: []\n", "har", "unknown recording format"),
        (b"- just a list\n", "vcrpy", "not a vcrpy recording"),
    ],
)
def test_what_cannot_be_converted_is_an_input_error(data: bytes, fmt: str, said: str) -> None:
    with pytest.raises(InputError, match=said):
        to_corpus_form(data, fmt)
