from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.exceptions import ScenarioError
from conformance.scenarios import deep_merge, load_scenario, load_scenarios
from conformance.scenarios.loader import minimal_override

GOOD = """\
title: Plain text
feature: text
check: decode
input:
  messages: [{role: user, content: Hi}]
providers:
  openai:
  anthropic: {unsupported: "no reason"}
expected: {message: {content: [{type: text, text: Hello}], stop_reason: stop}}
overrides:
  openai: {message: {raw_stop_reason: stop}}
"""


def write(tmp_path: Path, rel: str, text: str) -> Path:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_loads_a_scenario(tmp_path: Path) -> None:
    path = write(tmp_path, "scenarios/responses/text_plain.yaml", GOOD)
    scenario = load_scenario(path, tmp_path / "scenarios")
    assert (scenario.id, scenario.topic, scenario.feature, scenario.check) == (
        "text_plain",
        "responses",
        "text",
        "decode",
    )
    assert scenario.cassette_path("openai", tmp_path) == tmp_path / "cassettes/openai/text_plain.yaml"
    assert scenario.entry("anthropic").unsupported == "no reason"  # type: ignore[union-attr]
    assert scenario.expected_for("openai")["message"]["raw_stop_reason"] == "stop"
    assert "raw_stop_reason" not in scenario.expected_for("anthropic")["message"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("title: [unclosed\n", r"x\.yaml:2: malformed YAML"),
        ("- a list\n", "a scenario is a YAML mapping"),
        (
            GOOD.replace("feature: text", "feature: teleport"),
            "feature: Value error, unknown feature 'teleport'",
        ),
        (
            GOOD.replace("check: decode", "check: vibes"),
            "check: Value error, unknown check .vibes.; known checks: .*decode",
        ),
        (GOOD.replace("title: Plain text\n", ""), "title: Field required"),
        (GOOD.replace("openai:\n", "openai: {casette: x}\n"), r"providers\.openai\.casette: Extra inputs"),
    ],
)
def test_errors_name_the_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "scenarios/t/x.yaml", text)
    with pytest.raises(ScenarioError, match=message) as info:
        load_scenario(path)
    assert str(path) in str(info.value)


def test_ids_are_unique_across_topics(tmp_path: Path) -> None:
    write(tmp_path, "scenarios/a/same.yaml", GOOD)
    write(tmp_path, "scenarios/b/same.yaml", GOOD)
    with pytest.raises(ScenarioError, match="duplicate scenario id 'same'"):
        load_scenarios(tmp_path / "scenarios")


def test_selecting_an_unknown_scenario(tmp_path: Path) -> None:
    write(tmp_path, "scenarios/a/one.yaml", GOOD)
    with pytest.raises(ScenarioError, match="no scenario named two"):
        load_scenarios(tmp_path / "scenarios", only=["two"])


def test_deep_merge() -> None:
    base = {"m": {"content": [{"id": "a", "name": "f"}, {"id": "b"}], "x": 1, "y": 2}}
    over = {"m": {"content": [{}, {"id": "B"}, {"id": "c"}], "y": None}}
    assert deep_merge(base, over) == {"m": {"content": [{"id": "a", "name": "f"}, {"id": "B"}, {"id": "c"}], "x": 1}}


def test_an_override_key_may_name_several_providers_and_applies_in_file_order(tmp_path: Path) -> None:
    text = GOOD.split("overrides:")[0] + (
        "overrides:\n"
        "  openai, groq:\n"
        "    message: {raw_stop_reason: stop}\n"
        "  groq:\n"
        "    message: {usage: {input_tokens: 7}}\n"
    )
    scenario = load_scenario(write(tmp_path, "scenarios/t/shared.yaml", text))
    assert scenario.expected_for("openai")["message"]["raw_stop_reason"] == "stop"
    assert scenario.expected_for("groq")["message"]["raw_stop_reason"] == "stop"
    assert scenario.expected_for("groq")["message"]["usage"] == {"input_tokens": 7}
    assert "raw_stop_reason" not in scenario.expected_for("anthropic")["message"]


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 2]}),
        ({"a": 1, "b": 2}, {"a": 1, "c": 3}),
        ({"m": {"content": [{"t": "x", "k": 1}]}}, {"m": {"content": [{"t": "y", "k": 1}]}}),
        ({"l": [1, 2, 3]}, {"l": [1]}),
        ({"l": [{"a": 1}]}, {"l": [{"a": 1}, {"b": 2}]}),
        ({"x": {"y": 1}}, {"x": [1]}),
    ],
)
def test_the_minimal_override_merges_back_into_the_actual_form(expected: Any, actual: Any) -> None:
    delta = minimal_override(expected, actual)
    assert deep_merge(expected, delta) == actual
    if expected == actual:
        assert delta == {}
