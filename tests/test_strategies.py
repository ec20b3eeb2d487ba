"""The public hypothesis strategies: argument validation, what they generate, scenario output."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from conformance.model import AssistantMessage, Message, SystemMessage, ToolResultMessage, UserMessage
from conformance.scenarios.schema import ScenarioFile
from conformance.strategies import (
    KINDS,
    MUTATIONS,
    Pathological,
    as_scenario_yaml,
    pathological,
    rechunkings,
    transcripts,
)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_turns": 0},
        {"min_turns": 3, "max_turns": 2},
        {"max_turns": 1.5},
        {"providers": ["nope"]},
        {"providers": []},
        {"max_tool_calls": 0},
    ],
)
def test_transcripts_validates_bounds_up_front(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        transcripts(**kwargs)


@pytest.mark.parametrize("kwargs", [{"kinds": ["nope"]}, {"kinds": []}, {"max_mutations": 0}])
def test_pathological_validates_arguments_up_front(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        pathological(**kwargs)


def test_rechunkings_validates_max_chunks() -> None:
    with pytest.raises(InvalidArgument):
        rechunkings(b"abc", max_chunks=0)


def test_every_kind_has_a_mutation() -> None:
    assert set(KINDS) == set(MUTATIONS)


@given(transcripts(min_turns=2, max_turns=3, providers=["anthropic", "gemini"]))
def test_transcripts_are_valid_canonical_conversations(messages: list[Message]) -> None:
    body = [m for m in messages if not isinstance(m, SystemMessage)]
    assert isinstance(body[0], UserMessage)
    assert 2 <= sum(isinstance(m, UserMessage) for m in body) <= 3
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            assert message.provider in ("anthropic", "gemini")
            calls = {b.id for b in message.content if b.type == "tool_call"}
            answered = set()
            j = i + 1
            while j < len(messages) and isinstance(messages[j], ToolResultMessage):
                answered.add(messages[j].tool_call_id)  # type: ignore[union-attr]
                j += 1
            assert answered == calls


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_changes_the_transcript(kind: str) -> None:
    applied: list[Pathological] = []

    @settings(max_examples=25, derandomize=True, database=None, deadline=None)
    @given(pathological(kinds=[kind], max_mutations=1))
    def check(case: Pathological) -> None:
        assert case.kinds in ((), (kind,))
        if case.kinds:
            applied.append(case)
            assert case.messages != case.original

    check()
    assert applied, f"{kind} applied to none of 25 generated transcripts"


@given(data=st.data(), body=st.binary(max_size=64))
def test_rechunkings_concatenate_to_the_body(data: st.DataObject, body: bytes) -> None:
    chunks = data.draw(rechunkings(body))
    assert b"".join(chunks) == body
    assert all(chunks)


def test_rechunkings_respects_max_chunks() -> None:
    @given(rechunkings(b"abcdefgh", max_chunks=2))
    def check(chunks: list[bytes]) -> None:
        assert 1 <= len(chunks) <= 2

    check()


def test_as_scenario_yaml_is_a_loadable_scenario() -> None:
    messages: list[Message] = [UserMessage(content="héllo"), AssistantMessage(content="hi", provider="openai")]
    text = as_scenario_yaml(messages, "anthropic", "generated_repair")
    data = yaml.safe_load(text)
    scenario = ScenarioFile.model_validate(data)
    assert scenario.check == "repair"
    assert scenario.input["messages"][0] == {"role": "user", "content": [{"type": "text", "text": "héllo"}]}
    assert "héllo" in text
