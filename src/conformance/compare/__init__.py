"""Compare an expected normalized form with an actual one: deepdiff behind one small module.

Paths are contract paths (`message.content[0].text`). Central ignore rules leave out what is
provider vocabulary rather than behaviour (`provider`, `model`); a scenario adds its own. A path
pattern matches the path itself and everything below it; `[*]` matches any list index and `*`
any one key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, Literal

import orjson
from deepdiff import DeepDiff

from conformance.compare.results import VERDICTS, DiffEntry, ScenarioResult, Verdict

DEFAULT_IGNORE: tuple[str, ...] = (
    "message.provider",
    "message.model",
    "partial.provider",
    "partial.model",
)

_CHANGE_KINDS: dict[str, Literal["changed", "added", "removed", "type_changed"]] = {
    "values_changed": "changed",
    "type_changes": "type_changed",
    "dictionary_item_added": "added",
    "dictionary_item_removed": "removed",
    "iterable_item_added": "added",
    "iterable_item_removed": "removed",
    "attribute_added": "added",
    "attribute_removed": "removed",
}


def format_path(parts: Iterable[Any]) -> str:
    """A deepdiff path (a list of keys and indexes) as a contract path: `message.content[0].text`."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(root)"


def _regex(glob: str) -> str:
    return re.escape(glob).replace(r"\[\*\]", r"\[\d+\]").replace(r"\*", r"[^.\[]+")


@lru_cache(maxsize=512)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], object]:
    """One compiled alternation for a set of patterns: a path is tested once, not once per pattern."""
    if not patterns:
        return lambda _path: None
    alternation = "|".join(f"(?:{_regex(p)})" for p in patterns)
    return re.compile(rf"(?:{alternation})(?:$|[.\[])").match


def is_ignored(path: str, patterns: Iterable[str]) -> bool:
    """Whether a contract path is, or is below, one of the ignore patterns (`[*]`: any index, `*`: any key)."""
    return _matcher(tuple(patterns))(path) is not None


def diff(expected: Any, actual: Any, *, ignore: Iterable[str] = ()) -> list[DiffEntry]:
    """Differences between two JSON values, minus ignored paths; empty means equal."""
    patterns = (*DEFAULT_IGNORE, *ignore)
    ignored = _matcher(patterns)
    try:
        if _same(_pruned(expected, ignored, ""), _pruned(actual, ignored, "")):
            return []
    except RecursionError:  # nested deeper than a fast walk allows: let deepdiff decide
        pass
    originals: dict[int, Any] = {}
    try:
        left, right = _shared_where_identical(expected, actual, originals)
    except RecursionError:  # nested deeper than a fast walk allows: deepdiff walks it all
        left, right, originals = expected, actual, {}
    tree = DeepDiff(left, right, view="tree", verbose_level=2)
    entries: list[DiffEntry] = []
    for report_type, levels in tree.items():
        change = _CHANGE_KINDS.get(report_type)
        if change is None:
            continue
        for level in levels:
            path = format_path(level.path(output_format="list"))
            if ignored(path) is not None:
                continue
            entries.append(
                DiffEntry(
                    path=path,
                    change=change,
                    expected=None if change == "added" else _plain(originals.get(id(level.t1), level.t1)),
                    actual=None if change == "removed" else _plain(originals.get(id(level.t2), level.t2)),
                )
            )
    entries.sort(key=lambda e: e.path)
    return entries


def _pruned(value: Any, ignored: Callable[[str], object], path: str) -> Any:
    """`value` without the ignored paths. Equal pruned values mean every difference is ignored."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            sub = f"{path}.{key}" if path else str(key)
            if ignored(sub) is None:
                out[key] = _pruned(item, ignored, sub)
        return out
    if isinstance(value, list):
        kept = ((f"{path}[{i}]", item) for i, item in enumerate(value))
        return [_pruned(item, ignored, sub) for sub, item in kept if ignored(sub) is None]
    return value


def _shared_where_identical(expected: Any, actual: Any, originals: dict[int, Any]) -> tuple[Any, Any]:
    """`expected` and `actual` for deepdiff to walk: along the mappings from the root, a key whose
    two values are identical (`_identical`) holds one same object on both sides, which deepdiff
    passes over at once (`t1 is t2`) where it would walk it to find nothing. Every key stays, so
    deepdiff's choices between going deeper and reporting a mapping whole (by the keys the two
    sides share) and its report are the same; lists stay whole (deepdiff pairs their items by
    their content). `originals` maps each new mapping to the value it stands for, for the report."""
    if type(expected) is not dict or type(actual) is not dict:
        return expected, actual
    shared: dict[Any, tuple[Any, Any]] = {}
    for key, value in expected.items():
        if key in actual:
            other = actual[key]
            same = _identical(value, other)
            shared[key] = (value, value) if same else _shared_where_identical(value, other, originals)
    left = {key: shared[key][0] if key in shared else value for key, value in expected.items()}
    right = {key: shared[key][1] if key in shared else value for key, value in actual.items()}
    originals[id(left)], originals[id(right)] = expected, actual
    return left, right


_LEAVES = (str, int, float, bool, type(None))


def _identical(a: Any, b: Any) -> bool:
    """Equal JSON values of the same types all the way down (`1`, `1.0` and `true` differ; NaN
    differs from itself): deepdiff reports nothing between them."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        return len(a) == len(b) and all(k in b and _identical(v, b[k]) for k, v in a.items())
    if kind is list:
        return len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b, strict=True))
    return kind in _LEAVES and bool(a == b)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON, types included (`1`, `1.0` and `true` differ, as they do for deepdiff): the
    common case, decided without building a diff tree."""
    try:
        return orjson.dumps(a, option=orjson.OPT_SORT_KEYS) == orjson.dumps(b, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # not plain JSON, or nested past orjson's limit
        return False


def _plain(value: Any) -> Any:
    """deepdiff marks missing sides with a NotPresent object: keep JSON values only."""
    if value is None or isinstance(value, str | int | float | bool | list | dict):
        return value
    return None


def render_diff(entries: list[DiffEntry]) -> str:
    """A readable change list, one line per difference."""
    lines: list[str] = []
    for e in entries:
        if e.change == "added":
            lines.append(f"+ {e.path}: {_short(e.actual)} (unexpected)")
        elif e.change == "removed":
            lines.append(f"- {e.path}: {_short(e.expected)} (missing)")
        else:
            lines.append(f"~ {e.path}: expected {_short(e.expected)}, got {_short(e.actual)}")
    return "\n".join(lines)


def _short(value: Any, limit: int = 160) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = [
    "DEFAULT_IGNORE",
    "VERDICTS",
    "DiffEntry",
    "ScenarioResult",
    "Verdict",
    "diff",
    "format_path",
    "is_ignored",
    "render_diff",
]
