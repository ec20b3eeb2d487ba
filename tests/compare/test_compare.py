from __future__ import annotations

from typing import Any

from deepdiff import DeepDiff
from hypothesis import example, given
from hypothesis import strategies as st

from conformance.compare import _CHANGE_KINDS, _plain, _same, diff, format_path, is_ignored, render_diff


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


_KEYS = st.sampled_from(["a", "b", "c", "content", "usage"])
_JSON = st.recursive(
    st.sampled_from([0, 1, 1.0, -0.0, True, False, None, "x", "y", float("nan")]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=24,
)


def _walked_whole(expected: Any, actual: Any) -> list[tuple[str, str, str, str]]:
    """The report of deepdiff walking both values whole, as `diff` reads it."""
    tree = DeepDiff(expected, actual, view="tree", verbose_level=2)
    out = []
    for report_type, levels in tree.items():
        change = _CHANGE_KINDS.get(report_type)
        if change is None:
            continue
        for level in levels:
            path = format_path(level.path(output_format="list"))
            got = (
                None if change == "added" else _plain(level.t1),
                None if change == "removed" else _plain(level.t2),
            )
            out.append((path, change, repr(got[0]), repr(got[1])))
    return sorted(out, key=lambda e: e[0])


@given(_JSON, _JSON, st.data())
@example({"a": 1, "b": [1], "c": 1}, {"a": 1, "b": [1], "usage": 1, "content": 2}, None)  # 2 of 5 keys shared
def test_the_diff_is_deepdiffs_over_the_whole_values(expected: Any, other: Any, data: st.DataObject | None) -> None:
    """Identical keys are passed over, never judged: the report is the one of deepdiff walking all
    of both values (mappings reported whole by the share of keys they have in common included)."""
    # the actual value: another one, or the expected with some keys left out and some of the other's
    actual = other
    if data is not None and isinstance(expected, dict) and isinstance(other, dict) and data.draw(st.booleans()):
        kept = {k: v for k, v in expected.items() if data.draw(st.booleans())}
        actual = {**kept, **{k: v for k, v in other.items() if data.draw(st.booleans())}}
    entries = [(e.path, e.change, repr(e.expected), repr(e.actual)) for e in diff(expected, actual)]
    want = [] if _same(expected, actual) else _walked_whole(expected, actual)
    assert entries == want
