"""Decode gaps found on real recordings, kept as data (`recorded_gaps.json`).

Each case is checked on its authored body always, and on the recording that showed it when the
corpus is present (its hash first: the recording must be the one the evidence manifest lists).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from conformance.capabilities import get_profile
from conformance.codecs import codec_for, decode_response
from conformance.codecs.gemini.contents import build_contents
from conformance.evidence.corpus import read_entry
from conformance.evidence.manifest import bundled_manifest
from conformance.model import AssistantMessage, Outcome, ServerToolBlock, TextBlock, ThinkingBlock, ToolCallBlock
from tests.evidence import corpus

CASES: list[dict[str, Any]] = json.loads((Path(__file__).with_name("recorded_gaps.json")).read_text())["cases"]
RECORDED = [c for c in CASES if "recording" in c]


def facts(outcome: Outcome) -> dict[str, Any]:
    """What a case may say about a decode: error kind, stop reason, text, thinking, calls, usage."""
    message = outcome.message or outcome.partial
    error = outcome.error or (message.error if message is not None else None)
    blocks = message.content if message is not None else []
    text = "".join(b.text for b in blocks if isinstance(b, TextBlock))
    thinking = [b for b in blocks if isinstance(b, ThinkingBlock)]
    out: dict[str, Any] = {
        "error": error.kind if error is not None else None,
        "stop_reason": message.stop_reason if message is not None else None,
        "raw_stop_reason": message.raw_stop_reason if message is not None else None,
        "text": text,
        "thinking": len(thinking),
        "signed": sum(b.signature is not None for b in thinking),
        "thinking_text": "".join(b.thinking for b in thinking),
        "tool_calls": [[b.name, b.arguments] for b in blocks if isinstance(b, ToolCallBlock)],
    }
    try:
        parsed = json.loads(text)
        out["text_json_keys"] = list(parsed) if isinstance(parsed, dict) else None
    except ValueError:
        out["text_json_keys"] = None
    servers = [b for b in blocks if isinstance(b, ServerToolBlock)]
    out["server_tools"] = [[b.name, b.id, b.status, "thoughtSignature" in b.data] for b in servers]
    out["server_parts_sent_back"] = message is not None and _sent_back(message.content, servers)
    usage = message.usage if message is not None else None
    out["input_tokens"] = usage.input_tokens if usage is not None else None
    out["output_tokens"] = usage.output_tokens if usage is not None else None
    return out


def _sent_back(blocks: list[Any], servers: list[ServerToolBlock]) -> bool:
    """Whether the Gemini request carrying these blocks back holds each server-side part as it
    came (signature included), in order."""
    if not servers or any(b.dialect != "gemini" for b in servers):
        return False
    message = AssistantMessage(content=blocks, provider="gemini")
    _, contents = build_contents([message], get_profile("gemini"), "gemini-2.5-flash")
    kinds = {b.name for b in servers}
    parts = [p for c in contents for p in c["parts"] if kinds & set(p)]
    return parts == [b.data for b in servers]


def said(case_facts: dict[str, Any], outcome: Outcome) -> tuple[dict[str, Any], dict[str, Any]]:
    got = facts(outcome)
    return case_facts, {k: got[k] for k in case_facts}


def _authored(case: dict[str, Any]) -> Outcome:
    profile = get_profile(case["provider"])
    if case["stream"]:
        frames = [f"data: {p if isinstance(p, str) else orjson.dumps(p).decode()}\n\n" for p in case["sse"]]
        body, headers = "".join(frames).encode(), {"content-type": "text/event-stream"}
    else:
        body, headers = orjson.dumps(case["body"]), {"content-type": "application/json"}
    return decode_response(codec_for(profile), profile, 200, headers, body, stream_hint=case["stream"])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_authored_case(case: dict[str, Any]) -> None:
    expected, got = said(case["facts"], _authored(case))
    assert got == expected, case["what"]


def test_recordings_are_the_manifests() -> None:
    listed = {r.path: r.sha256 for r in bundled_manifest().recordings}
    for case in RECORDED:
        assert listed.get(case["recording"]["path"]) == case["recording"]["sha256"], case["id"]


@pytest.mark.skipif(not corpus.PRESENT, reason=corpus.ABSENT)
@pytest.mark.parametrize("case", RECORDED, ids=[c["id"] for c in RECORDED])
def test_recorded_case(case: dict[str, Any]) -> None:
    recording = case["recording"]
    data = (corpus.CORPUS / recording["path"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == recording["sha256"], f"{recording['path']} is another version"
    entry = next(e for e in corpus.catalog() if e["path"] == recording["path"])
    calls, _ = read_entry(corpus.CORPUS, entry, data=data)
    call = next(it for it in calls if it.index == recording["interaction"])
    assert call.profile.name == case["provider"]
    expected, got = said(recording["facts"], call.decode())
    assert got == expected, case["what"]
