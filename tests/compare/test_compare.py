from __future__ import annotations

from conformance.compare import diff, is_ignored, render_diff


def test_equal_forms_have_no_diff() -> None:
    form = {"message": {"content": [{"type": "text", "text": "hi"}], "stop_reason": "stop"}}
    assert diff(form, form) == []


def test_changes_are_reported_by_contract_path() -> None:
    expected = {"message": {"content": [{"type": "text", "text": "hi"}], "usage": {"input_tokens": 3}}}
    actual = {"message": {"content": [{"type": "text", "text": "ho"}, {"type": "text", "text": "x"}]}}
    entries = diff(expected, actual)
    assert [(e.path, e.change) for e in entries] == [
        ("message.content[0].text", "changed"),
        ("message.content[1]", "added"),
        ("message.usage", "removed"),
    ]
    assert entries[0].expected == "hi" and entries[0].actual == "ho"
    text = render_diff(entries)
    assert '~ message.content[0].text: expected "hi", got "ho"' in text
    assert "- message.usage" in text and "+ message.content[1]" in text


def test_provider_and_model_are_ignored_by_default() -> None:
    assert diff({"message": {"model": "a", "provider": "x"}}, {"message": {"model": "b", "provider": "y"}}) == []


def test_scenario_ignore_patterns() -> None:
    assert is_ignored("message.usage.input_tokens", ["message.usage"])
    assert is_ignored("message.content[3].id", ["message.content[*].id"])
    assert not is_ignored("message.usage_extra", ["message.usage"])
    assert not is_ignored("message.content[0].name", ["message.content[*].id"])


def test_type_change() -> None:
    (entry,) = diff({"a": 1}, {"a": "1"})
    assert entry.change == "type_changed"
