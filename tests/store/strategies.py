"""Hypothesis strategies for the store: random operation scripts and planted corruptions.

An operation names nodes by index into the ids created so far, newest first (modulo their number), so every
script is valid input whatever was created or deleted before it; deleted ids stay in the list,
which exercises `missing_node`. Shrinking removes operations and lowers indices.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

CALL_IDS = ("c0", "c1")

messages = st.sampled_from(
    [
        {"role": "user", "content": "hello there"},
        {"role": "user", "content": "and more text"},
        {"role": "assistant", "content": "an answer"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "calling"}, {"type": "tool_call", "id": "c0", "name": "f"}],
        },
        {"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "g", "arguments": {"x": 1}}]},
        {"role": "tool_result", "tool_call_id": "c0", "content": "r0"},
        {"role": "tool_result", "tool_call_id": "c1", "content": "r1"},
        {"role": "system", "content": "not here"},
        {"role": "user", "content": []},
    ]
)
contents = st.sampled_from(["edited text", "", "  ", [{"type": "text", "text": "two words"}], "hello there"])
index = st.integers(min_value=0, max_value=12)

operations = st.one_of(
    st.tuples(st.just("append"), index, messages),
    st.tuples(st.just("append"), index, messages),
    st.tuples(st.just("append"), index, messages),
    st.tuples(st.just("append"), index, messages),
    st.tuples(st.just("edit"), index, contents),
    st.tuples(st.just("split"), index, st.integers(0, 1), st.one_of(st.integers(1, 9), st.none())),
    st.tuples(st.just("delete"), index),
    st.tuples(st.just("reparent"), index, index),
    st.tuples(st.just("bookmark"), index, st.sampled_from(["a", "b"])),
)
scripts = st.lists(st.one_of(operations, st.tuples(st.just("create_root"))), min_size=4, max_size=30)


CORRUPTIONS: tuple[str, ...] = (
    "truncated_node",
    "orphan_parent",
    "cycle",
    "root_has_parent",
    "stale_registry_entry",
    "unregistered_root",
    "corrupt_registry",
    "dangling_bookmark",
    "leftover_temp",
    "stale_cache",
)
"""Each maps to the violation kind fsck must report (see tests/store/test_properties.py)."""

corruptions = st.tuples(st.sampled_from(CORRUPTIONS), st.integers(min_value=0, max_value=20))


def describe(script: list[tuple[Any, ...]]) -> str:
    return "\n".join(repr(op) for op in script)
