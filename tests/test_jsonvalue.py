"""`jsonvalue.safe`'s shortcut: a value already plain JSON is returned as is without a copy, and
the shortcut answers exactly when the full walk would have kept the value itself."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.jsonvalue import MAX_CHARS, MAX_ITEMS, MAX_VALUE_CHARS, _unchanged, _walked, safe

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["\ud83d", "é", "x" * (MAX_CHARS + 1), "y" * MAX_CHARS, b"\xff", (1, 2)]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(st.text(max_size=4), st.sampled_from(["\udfff", 1, None])), inner, max_size=5),
        st.tuples(inner),
    ),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(value=_values, shorten=st.booleans(), max_depth=st.integers(min_value=0, max_value=4))
def test_the_shortcut_answers_as_the_walk_would(value: Any, shorten: bool, max_depth: int) -> None:
    walked = _walked(value, shorten, max_depth)
    assert _unchanged(value, shorten, max_depth) == (walked is value and isinstance(value, dict | list))
    assert safe(value, shorten=shorten, max_depth=max_depth) == walked or _has_nan(walked)


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return False


def test_limits_the_shortcut_keeps() -> None:
    many = list(range(MAX_ITEMS + 1))
    assert safe(many) is many
    assert safe(many, shorten=True) is not many
    long_strings = ["z" * MAX_CHARS] * (MAX_VALUE_CHARS // MAX_CHARS)
    assert safe(long_strings, shorten=True) is long_strings
    over = [*long_strings, "z"]
    assert safe(over, shorten=True)[-1].startswith("… [1 more characters")
    deep: Any = []
    for _ in range(5):
        deep = [deep]
    assert safe(deep, max_depth=6) is deep
    assert safe(deep, max_depth=5) != deep


def test_subclasses_take_the_long_way() -> None:
    class Text(str):
        pass

    class Mapping(dict[str, Any]):
        pass

    value = Mapping(a=Text("b"), c=1.5)
    assert not _unchanged(value, False, 10)
    assert safe(value) is value  # the walk keeps what needs no change, whatever its class
    assert safe({"n": True, "f": math.inf}) == {"n": True, "f": "Infinity"}
