"""Load scenario files. Errors name the file and the field path (`title`, `providers.openai.cassette`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from conformance.capabilities import listed_only
from conformance.exceptions import ScenarioError
from conformance.fileio import memoized, parse_yaml, read_text
from conformance.scenarios.schema import ProviderEntry, ScenarioFile

_CONVERSATION_KEYS = frozenset({"messages", "tools", "options", "model"})


@dataclass(frozen=True)
class Scenario:
    """A loaded scenario file: its id, topic (the directory), path and validated content."""

    id: str
    """The file's stem; unique across topics."""
    topic: str
    path: Path
    spec: ScenarioFile
    layers: tuple[Path, ...] = ()
    """The project roots this scenario was loaded among, the top one first (`scenarios.layers`):
    its cassettes are looked up in each in turn. Empty for a single root."""

    @property
    def feature(self) -> str:
        """The feature (matrix row) this scenario is evidence for."""
        return self.spec.feature

    @property
    def check(self) -> str:
        """The name of the registered check that judges this scenario."""
        return self.spec.check

    def entry(self, provider: str) -> ProviderEntry | None:
        """This scenario's entry for `provider`, or None when the file has none."""
        return self.spec.providers.get(provider)

    def cassette_path(self, provider: str, root: Path) -> Path:
        """The cassette for `provider`: the entry's path, else `cassettes/<provider>/<id>.yaml`, in the first
        layer that has it, else under `root`."""
        rel = self.cassette_rel(provider)
        for layer in self.layers:
            if (layer / rel).is_file():
                return layer / rel
        return root / rel

    def cassette_rel(self, provider: str) -> str:
        """The cassette's path relative to a root: the entry's, else `cassettes/<provider>/<id>.yaml`."""
        entry = self.entry(provider)
        return entry.cassette if entry is not None and entry.cassette else f"cassettes/{provider}/{self.id}.yaml"

    def applies(self, provider: str) -> bool:
        """Whether `provider` has a row for this scenario (`applies_to`; default every provider, but a
        column for the scenarios that name it only, such as the generic profile's, where it is named)."""
        if self.spec.applies_to is not None:
            return provider in self.spec.applies_to
        return provider in self.spec.providers or not listed_only(provider)

    def conversation(self, provider: str) -> dict[str, Any]:
        """The input's conversation (CONVERSATION.json) with the provider entry's model and options applied.

        Only `messages`, `tools`, `options` and `model` belong to it; checks read their own settings
        (e.g. `runtime`, `repair_options`) from the rest of the input."""
        data = {k: v for k, v in self.spec.input.items() if k in _CONVERSATION_KEYS}
        entry = self.entry(provider)
        if entry is not None and entry.model:
            data["model"] = entry.model
        if entry is not None and entry.options:
            data["options"] = {**data.get("options", {}), **entry.options}
        data.setdefault("messages", [])
        return data

    def expected_for(self, provider: str) -> Any:
        """The shared expected form with the provider's overrides deep-merged over it, in file order.

        An override key names one provider or several separated by commas (`openrouter, xai, groq`:
        gateways of one dialect sharing one expected body)."""
        expected = self.spec.expected
        for key, override in self.spec.overrides.items():
            if provider in override_providers(key):
                expected = deep_merge(expected, override)
        return expected


def override_providers(key: str) -> list[str]:
    """The providers an `overrides` key names (`"openrouter, xai"` → `["openrouter", "xai"]`)."""
    return [name.strip() for name in key.split(",") if name.strip()]


REPLACE = "$replace"
"""`{"$replace": value}` in an override puts `value` in place as it is (e.g. a shorter list)."""


def deep_merge(base: Any, override: Any) -> Any:
    """Mappings merge key by key; lists merge index by index (extra items appended); scalars replace.
    A `null` in a mapping override removes the key; `{"$replace": value}` replaces without merging."""
    if isinstance(override, dict) and len(override) == 1 and REPLACE in override:
        return override[REPLACE]
    if isinstance(base, dict) and isinstance(override, dict):
        out = dict(base)
        for key, value in override.items():
            if value is None:
                out.pop(key, None)
            elif key in out:
                out[key] = deep_merge(out[key], value)
            else:
                out[key] = value
        return out
    if isinstance(base, list) and isinstance(override, list):
        merged = [deep_merge(b, o) for b, o in zip(base, override, strict=False)]
        return merged + base[len(override) :] + override[len(base) :]
    return override


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def load_scenario(path: Path, root: Path | None = None) -> Scenario:
    """One scenario file, parsed once per file version (the result is shared: treat it as read-only)."""
    return memoized(f"scenario:{root}", path, lambda p: _load_scenario(p, root))


def _load_scenario(path: Path, root: Path | None) -> Scenario:
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise ScenarioError("no such scenario file", where=str(path)) from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"not UTF-8 text ({exc.reason})", where=str(path)) from None
    try:
        data = parse_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ScenarioError(f"malformed YAML: {getattr(exc, 'problem', None) or exc}", where=where) from None
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a YAML mapping", where=str(path))
    try:
        spec = ScenarioFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _loc(tuple(first["loc"])) or "(top level)"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ScenarioError(f"{field}: {first['msg']}{more}", where=str(path)) from None
    topic = path.parent.name if root is None else path.parent.relative_to(root).as_posix()
    return Scenario(id=path.stem, topic=topic, path=path, spec=spec)


def load_scenarios(directory: Path, *, only: Iterable[str] | None = None) -> list[Scenario]:
    """Every `*.yaml` below `directory`, sorted by topic then id; ids must be unique."""
    if not directory.is_dir():
        raise ScenarioError("no such scenario directory", where=str(directory))
    wanted = set(only) if only is not None else None
    seen: dict[str, Path] = {}
    out: list[Scenario] = []
    for path in sorted(directory.rglob("*.yaml")):
        if wanted is not None and path.stem not in wanted:
            continue
        scenario = load_scenario(path, directory)
        if scenario.id in seen:
            raise ScenarioError(f"duplicate scenario id {scenario.id!r} (also {seen[scenario.id]})", where=str(path))
        seen[scenario.id] = path
        out.append(scenario)
    if wanted:
        missing = wanted - set(seen)
        if missing:
            raise ScenarioError(f"no scenario named {', '.join(sorted(missing))}", where=str(directory))
    return sorted(out, key=lambda s: (s.topic, s.id))


def minimal_override(expected: Any, actual: Any) -> Any:
    """The smallest override that `deep_merge`s `expected` into `actual` (`{}` when they are equal)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: dict[str, Any] = {}
        for key, value in actual.items():
            if key not in expected:
                out[key] = value
            elif expected[key] != value:
                out[key] = minimal_override(expected[key], value)
        for key in expected:
            if key not in actual:
                out[key] = None
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(actual) >= len(expected):
        items = [minimal_override(e, a) if e != a else _same_item(e) for e, a in zip(expected, actual, strict=False)]
        return items + actual[len(expected) :]
    if expected == actual:
        return _same_item(expected)
    return {REPLACE: actual} if isinstance(actual, dict | list) else actual


def _same_item(value: Any) -> Any:
    """An override item that leaves `value` as it is."""
    return {} if isinstance(value, dict) else value
