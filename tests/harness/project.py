"""A tiny project on disk (scenarios/ + cassettes/) for harness, plugin and CLI tests."""

from __future__ import annotations

import io
from pathlib import Path

from conformance.harness.sync import sync_requests
from conformance.scenarios import stack_roots

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


USER_FEATURE = "tinyllm_greeting"
MANIFEST = f"""\
bundled: true
features:
  - {{id: {USER_FEATURE}, group: tinyllm, title: Greets in the model's own words}}
"""
OVERRIDE_TITLE = "Plain text, as this project reads it"


def make_user_root(root: Path, bundled_scenarios: Path) -> Path:
    """A user's root layered over the bundled data: one new scenario (text_hello, on anthropic only)
    for a new feature declared in its conformance.yaml, and one bundled scenario (text_basic)
    overridden with its own title."""
    scenario = SCENARIO.replace("feature: text\n", f"feature: {USER_FEATURE}\napplies_to: [anthropic]\n")
    scenario = scenario.replace('  openai: {unsupported: "not under test here"}\n', "")
    root.mkdir(parents=True, exist_ok=True)
    (root / "conformance.yaml").write_text(MANIFEST, encoding="utf-8")
    stack_roots([root], bundled_scenarios.parent)  # the feature joins the catalog before the requests are synced
    make_project(root, scenario=scenario)
    bundled = (bundled_scenarios / "responses" / "text_basic.yaml").read_text(encoding="utf-8")
    title = next(line for line in bundled.splitlines() if line.startswith("title:"))
    override = bundled.replace(title, f"title: {OVERRIDE_TITLE}", 1)
    (root / "scenarios" / "responses" / "text_basic.yaml").write_text(override, encoding="utf-8")
    return root
