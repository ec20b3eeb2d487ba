"""Every recorded Responses interaction of the shared corpus (OpenAI, Azure OpenAI, xAI,
OpenRouter and the other servers that speak the Responses API), decoded and compared with the
official `openai` SDK reading the same bytes offline (`ResponseStreamState` for streams).

The corpus ships with the project (`corpus/`; `CONFORMANCE_CORPUS` names another copy, and these
tests skip when that copy is absent). Only `POST …/responses` interactions are Responses answers
(a cassette may also hold file uploads, `GET /responses/{id}` polls or MCP traffic).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from conformance.codecs import decode_response
from conformance.codecs.base import is_stream
from conformance.codecs.openai_responses import CODEC
from conformance.model import ThinkingBlock
from tests.evidence import corpus
from tests.evidence.corpus import Interaction
from tests.evidence.summary import ours
from tests.evidence.test_corpus import REFERENCE_GAPS, sdk_openai_responses

if not corpus.PRESENT:
    pytest.skip(corpus.ABSENT, allow_module_level=True)

BASELINE_INTERACTIONS = 105
BASELINE_AGREE = 105
"""Measured on the corpus of 2026-11: every interaction agrees with the SDK. A drop fails."""

BASELINE_SERVER_TOOL_ITEMS = 19
"""Built-in tool items (`web_search_call`, `mcp_call`, …) decoded as `server_tool` blocks that the
SDK's `Response.output` holds too, item for item (type, id, status, every field); measured on the
corpus of 2026-11 (none before the block existed: the items were dropped). A drop fails."""


def _interactions() -> tuple[Interaction, ...]:
    """Every `POST …/responses` call of the corpus, read once (`tests.evidence.corpus`)."""
    return corpus.load("openai_responses")[0]


def test_every_responses_recording_decodes_and_agrees_with_the_sdk(
    record_property: Callable[[str, object], None],
) -> None:
    interactions = agree = 0
    notes: list[str] = []
    gaps: list[str] = []  # known gaps of the reference (`REFERENCE_GAPS`), listed, not counted
    for it in _interactions():
        interactions += 1
        outcome = decode_response(CODEC, it.profile, it.status, it.headers, it.body, stream_hint=it.stream)
        mine = ours(outcome)
        where = f"{it.path}#{it.index}"
        try:
            theirs = sdk_openai_responses.sdk_summary(it.status, it.headers, it.body, it.stream)
        except sdk_openai_responses.SDKCannotRead as exc:
            print(f"explained: the SDK cannot read {where} ({exc}); ours: {mine}")
            continue
        if where in REFERENCE_GAPS:
            if mine == theirs:
                notes.append(f"{where}: agrees now, drop it from REFERENCE_GAPS")
            gaps.append(where)
            continue
        if theirs is None:
            if outcome.error is not None:
                agree += 1  # both report a failure
            else:
                notes.append(f"{where}: the SDK reports an error, ours {mine}")
        elif mine == theirs:
            agree += 1
        else:
            notes.append(f"{where}: ours={mine} sdk={theirs}")
    line = f"corpus openai_responses: {interactions} interactions, agree {agree}, known reference gaps {len(gaps)}"
    print(line)
    record_property("corpus", line)
    assert interactions >= BASELINE_INTERACTIONS
    assert agree >= BASELINE_AGREE, "\n".join(notes[:10])
    assert not notes, "\n".join(notes[:10])


def test_built_in_tool_items_are_kept_as_the_sdk_reads_them() -> None:
    items = 0
    for it in _interactions():
        outcome = decode_response(CODEC, it.profile, it.status, it.headers, it.body, stream_hint=it.stream)
        mine = ours(outcome)
        try:
            theirs = sdk_openai_responses.sdk_summary(it.status, it.headers, it.body, it.stream)
        except sdk_openai_responses.SDKCannotRead:
            continue
        if mine is None or theirs is None or f"{it.path}#{it.index}" in REFERENCE_GAPS:
            continue
        assert mine.server_tools == theirs.server_tools, f"{it.path}#{it.index}"
        items += len(mine.server_tools)
    print(f"corpus openai_responses: {items} built-in tool items kept")
    assert items >= BASELINE_SERVER_TOOL_ITEMS


def test_reasoning_items_keep_what_goes_back() -> None:
    """Every recorded reasoning item with `encrypted_content` becomes a thinking block whose
    signature holds it byte for byte (so it can be sent back with `store: false`)."""
    checked = 0
    for it in _interactions():
        if it.status >= 400 or b"encrypted_content" not in it.body or it.stream:
            continue
        body = json.loads(it.body)
        wire = [i["encrypted_content"] for i in body.get("output", []) if i.get("type") == "reasoning"]
        outcome = decode_response(CODEC, it.profile, it.status, it.headers, it.body, stream_hint=False)
        assert outcome.message is not None, it.path
        signatures = [json.loads(b.signature or "{}") for b in outcome.message.content if isinstance(b, ThinkingBlock)]
        assert [s.get("encrypted_content") for s in signatures] == wire, it.path
        checked += len(wire)
    assert checked > 0


@pytest.mark.parametrize("size", [1, 7, 113])
def test_corpus_streams_decode_the_same_in_any_chunking(size: int) -> None:
    streams = 0
    for it in _interactions():
        if it.status >= 400 or not is_stream(CODEC, it.headers, it.stream):
            continue
        streams += 1
        whole = decode_response(CODEC, it.profile, it.status, it.headers, it.body, stream_hint=it.stream)
        pieces = [it.body[k : k + size] for k in range(0, len(it.body), size)]
        split = decode_response(CODEC, it.profile, it.status, it.headers, it.body, stream_hint=it.stream, chunks=pieces)
        assert split == whole, f"{it.path}#{it.index}"
    assert streams > 0
