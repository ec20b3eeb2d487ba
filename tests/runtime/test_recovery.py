"""Damaged transcript lines: a record nested too deep is skipped without losing the file, and the
search for records is linear in the line's length whatever the damage."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.runtime.recovery import MAX_DEPTH, Scanner, objects
from conformance.runtime.transcripts import load_transcript

GOOD = '{"role":"user","content":[{"type":"text","text":"ok"}]}'
DAMAGE = {
    "braces": lambda n: "{" * n,
    "unclosed objects": lambda n: '{"a":' * (n // 5),
    "unclosed arrays": lambda n: '{"a":' + "[" * n,
    "key quotes": lambda n: '{"' * (n // 2),
    "glued fragments": lambda n: '{"role":"user","con' * (n // 19),
    "escaped strings": lambda n: '{"a":"{\\"a\\":' * (n // 12),
    "nested roles": lambda n: '{"role":' * (n // 8),
    "objects in an open array": lambda n: '{"role":[' + '{"a":1},' * (n // 8),
}


def test_a_line_nested_a_thousand_deep_loses_only_itself(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    deep = '{"role":"user","content":' + "[" * 1000 + "]" * 1000 + "}"
    path.write_text(f'{GOOD}\n{{"a":{"[" * 1000}\n{deep}\n{GOOD}\n')
    loaded = load_transcript(path)
    assert len(loaded.messages) == 2
    assert [w.split(":")[0] for w in loaded.warnings] == ["line 2", "line 3"]


def test_a_record_as_deep_as_allowed_is_kept() -> None:
    value = '{"role":"user","x":' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}"
    assert [(s, e) for s, e, _ in objects(value, lambda v: v)] == [(0, len(value))]
    too_deep = '{"role":"user","x":' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}"
    assert list(objects(too_deep, lambda v: v)) == []


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_recovery_work_is_linear_in_the_line(kind: str) -> None:
    costs = []
    for size in (1 << 14, 1 << 17):
        text = GOOD + DAMAGE[kind](size) + GOOD
        scanner = Scanner(text)
        found = list(objects(text, lambda v: v, scanner))
        assert found[-1][1] == len(text)  # the record after the damage is found
        costs.append(scanner.work / len(text))
    assert costs[1] <= costs[0] * 1.1 + 0.1, costs  # work per character does not grow with size
    assert costs[1] < 8


def test_a_long_run_of_braces_loads_fast(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(GOOD + "\n" + "{" * 160_000 + "\n" + GOOD + "\n")
    loaded = load_transcript(path)
    assert len(loaded.messages) == 2 and loaded.warnings[0].startswith("line 2: skipped")
