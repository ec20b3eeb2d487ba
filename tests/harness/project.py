"""A tiny project on disk (scenarios/ + cassettes/) for harness, plugin and CLI tests."""

from __future__ import annotations

import io
from pathlib import Path

from conformance.harness.sync import sync_requests

SCENARIO = """\
title: Plain text from Anthropic
feature: text
check: decode
input:
  messages: [{role: user, content: "Say hello"}]
  options: {max_tokens: 64}
providers:
  anthropic: {}
  openai: {unsupported: "not under test here"}
expected:
  message:
    role: assistant
    content: [{type: text, text: "Hello!"}]
    stop_reason: stop
    raw_stop_reason: end_turn
    usage: {input_tokens: 12, output_tokens: 4}
"""

CASSETTE = """\
meta: {provider: anthropic, model: claude-sonnet-4-5-20250929, recorded: '2026-11-22'}
interactions:
- request:
    method: POST
    uri: https://api.anthropic.com/v1/messages
    headers: {content-type: [application/json]}
    body: null
  response:
    status: {code: 200, message: OK}
    headers: {content-type: [application/json], request-id: [req_011CV1]}
    body:
      string: '{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Hello!"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":4,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}'
version: 1
"""


def make_project(root: Path, *, scenario: str = SCENARIO, cassette: str | None = CASSETTE) -> Path:
    (root / "scenarios" / "responses").mkdir(parents=True, exist_ok=True)
    (root / "cassettes" / "anthropic").mkdir(parents=True, exist_ok=True)
    (root / "scenarios" / "responses" / "text_hello.yaml").write_text(scenario, encoding="utf-8")
    if cassette is not None:
        (root / "cassettes" / "anthropic" / "text_hello.yaml").write_text(cassette, encoding="utf-8")
        sync_requests(root, providers=["anthropic"], only=None, write=True, out=io.StringIO())
    return root
