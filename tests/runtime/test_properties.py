"""Properties of repair, encode and transcript loading over generated transcripts, per profile."""

from __future__ import annotations

import importlib
import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import given, note
from hypothesis import strategies as st

from conformance.capabilities import ProviderProfile, get_profile, provider_names
from conformance.codecs.base import Codec
from conformance.model import (
    AssistantMessage,
    Conversation,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    dump,
)
from conformance.runtime.repair import RepairOptions, repair
from conformance.runtime.transcripts import load_transcript
from conformance.runtime.validate import validate
from conformance.strategies import Pathological, as_scenario_yaml, jsonl_corruptions, pathological, transcripts
from tests.runtime.canonical import canonical_violations

PROVIDERS = provider_names()


def _codec(profile: ProviderProfile) -> Codec | None:
    """The profile's codec; None while its dialect package is not there yet."""
    try:
        from conformance.codecs import codec_for

        return codec_for(profile)
    except ImportError:
        try:
            module = importlib.import_module(f"conformance.codecs.{profile.dialect}")
        except ImportError:
            return None
        codec = getattr(module, "CODEC", None)
        return codec if isinstance(codec, Codec) else None


def _note(messages: list[Message], provider: str, feature: str) -> None:
    note(as_scenario_yaml(messages, provider, feature))


# Each generated transcript is checked against every profile in one example, so a transcript is
# generated once for all providers (generation is the expensive part); a failure names the provider.


@given(case=pathological(), foreign=st.sampled_from(("drop", "text")), proxy=st.booleans())
def test_repair_is_idempotent_deterministic_and_canonical(case: Pathological, foreign: Any, proxy: bool) -> None:
    options = RepairOptions(foreign_thinking=foreign, gemini_proxy=proxy)
    _note(case.messages, "<provider>", "generated_repair")
    before = [dump(m) for m in case.messages]
    for provider in PROVIDERS:
        profile = get_profile(provider)
        once = repair(case.messages, profile, options=options, copy_input=False)
        assert [dump(m) for m in case.messages] == before, f"{provider}: repair modified its input"
        again = repair(case.messages, profile, options=options)
        assert [dump(m) for m in again.messages] == [dump(m) for m in once.messages], provider
        twice = repair(once.messages, profile, options=options)
        assert [dump(m) for m in twice.messages] == [dump(m) for m in once.messages], provider
        assert twice.actions == [], provider
        assert canonical_violations(once.messages, profile, profile.default_model) == [], provider


@given(case=pathological())
def test_repaired_transcript_encodes_to_a_valid_request(case: Pathological) -> None:
    for provider in PROVIDERS:
        profile = get_profile(provider)
        codec = _codec(profile)
        assert codec is not None, f"no {profile.dialect} codec"
        repaired = repair(case.messages, profile).messages
        request = codec.encode(Conversation(messages=repaired), profile)
        problems = validate(request.body, profile, awaiting_tools=True)  # calls at the end may be pending
        if problems:
            _note(case.messages, provider, "generated_repair")
            note(json.dumps(request.body, indent=1, ensure_ascii=False))
        assert problems == [], provider


def _atoms(messages: list[Message]) -> Counter[tuple[str, ...]]:
    atoms: Counter[tuple[str, ...]] = Counter()
    for message in messages:
        if isinstance(message, ToolResultMessage):
            text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
            atoms[("result", message.tool_name or "", text, str(message.is_error))] += 1
            continue
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                atoms[("text", block.text)] += 1
            elif isinstance(block, ThinkingBlock) and block.thinking:
                atoms[("text", block.thinking)] += 1
            elif isinstance(block, ToolCallBlock):
                atoms[("call", block.name, json.dumps(block.arguments, sort_keys=True))] += 1
            elif not isinstance(block, TextBlock):
                atoms[(block.type, json.dumps(dump(block), sort_keys=True))] += 1
    return atoms


@given(case=pathological())
def test_content_is_removed_only_with_a_warning(case: Pathological) -> None:
    before = _atoms(case.messages)
    for provider in PROVIDERS:
        res = repair(case.messages, get_profile(provider))
        lost = before - _atoms(res.messages)
        if lost:
            assert res.warnings, (provider, lost)
        if not res.actions:
            assert [dump(m) for m in res.messages] == [dump(m) for m in case.messages], provider


def _pairs(messages: list[Message]) -> list[tuple[str, str, str, str]]:
    calls: dict[str, ToolCallBlock] = {
        b.id: b for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolCallBlock)
    }
    return [
        (
            calls[m.tool_call_id].name,
            json.dumps(calls[m.tool_call_id].arguments, sort_keys=True),
            str(m.content),
            str(m.is_error),
        )
        for m in messages
        if isinstance(m, ToolResultMessage) and m.tool_call_id in calls
    ]


@given(messages=transcripts())
def test_every_valid_call_and_result_pair_survives(messages: list[Message]) -> None:
    for provider in PROVIDERS:
        repaired = repair(messages, get_profile(provider)).messages
        assert _pairs(repaired) == _pairs(messages), provider


@given(data=st.data(), messages=transcripts(max_turns=4))
def test_corrupted_jsonl_recovers_every_complete_record(data: st.DataObject, messages: list[Message]) -> None:
    corrupted = data.draw(jsonl_corruptions(messages))
    note(repr(corrupted.data))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_bytes(corrupted.data)
        loaded = load_transcript(path)
        assert path.read_bytes() == corrupted.data
    assert [dump(m) for m in loaded.messages] == [dump(messages[i]) for i in corrupted.complete]
    if len(corrupted.complete) < len(messages):
        assert loaded.warnings
