"""Project roots layered over each other and over the bundled data.

A root may hold a `conformance.yaml` manifest:

```yaml
bundled: true          # layer this root over the bundled scenarios and cassettes
features:              # the project's own matrix rows, joined to the catalog
  - {id: tinyllm_greeting, group: tinyllm, title: Greets in the model's own words}
```

Roots are stacked bottom to top (the bundled data first when a manifest asks for it, then the roots
in the order given). A scenario id in a higher root replaces the lower one; a cassette is looked up
from the top root down, so a root may also override a bundled scenario's cassette alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from conformance.exceptions import ScenarioError
from conformance.fileio import parse_yaml, read_text
from conformance.scenarios.catalog import Feature, register_feature
from conformance.scenarios.loader import Scenario, load_scenarios

MANIFEST = "conformance.yaml"


class FeatureEntry(BaseModel):
    """A feature a project root declares: a row of its matrix."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    group: str = "project"
    title: str


class RootManifest(BaseModel):
    """A root's `conformance.yaml`: whether it layers over the bundled data, and its own features."""

    model_config = ConfigDict(extra="forbid")

    bundled: bool = False
    features: list[FeatureEntry] = Field(default_factory=list)


def read_manifest(root: Path) -> RootManifest:
    """`root/conformance.yaml`, or an empty manifest when there is none."""
    path = root / MANIFEST
    if not path.is_file():
        return RootManifest()
    try:
        data = parse_yaml(read_text(path))
    except yaml.YAMLError as exc:
        raise ScenarioError(f"malformed YAML: {getattr(exc, 'problem', None) or exc}", where=str(path)) from None
    try:
        return RootManifest.model_validate(data if data is not None else {})
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise ScenarioError(f"{field}: {first['msg']}", where=str(path)) from None


def stack_roots(roots: Sequence[Path], bundled: Path) -> tuple[Path, ...]:
    """The layers, bottom first, for the roots given (lowest first): the bundled data below them when a
    manifest asks for it. Each root's features join the catalog."""
    layers: list[Path] = []
    below = False
    for root in roots:
        manifest = read_manifest(root)
        below = below or manifest.bundled
        for entry in manifest.features:
            try:
                register_feature(Feature(entry.id, entry.group, entry.title))
            except ValueError as exc:
                raise ScenarioError(str(exc), where=str(root / MANIFEST)) from None
        if root not in layers:
            layers.append(root)
    bundled_scenarios = (bundled / "scenarios").resolve()
    if below and all((root / "scenarios").resolve() != bundled_scenarios for root in layers):
        layers.insert(0, bundled)
    return tuple(layers)


def load_layered(layers: Sequence[Path], *, only: Iterable[str] | None = None) -> list[Scenario]:
    """The scenarios of every layer (bottom first), a higher layer's replacing a lower one's of the same id."""
    if len(layers) == 1:
        return load_scenarios(layers[0] / "scenarios", only=only)
    top_first = tuple(reversed(layers))
    by_id: dict[str, Scenario] = {}
    for root in layers:
        if (root / "scenarios").is_dir():
            for scenario in load_scenarios(root / "scenarios"):
                by_id[scenario.id] = dataclasses.replace(scenario, layers=top_first)
    if not by_id:
        raise ScenarioError("no scenarios/ directory in any root", where=", ".join(map(str, top_first)))
    wanted = set(only) if only is not None else None
    if wanted:
        missing = wanted - set(by_id)
        if missing:
            raise ScenarioError(f"no scenario named {', '.join(sorted(missing))}", where=str(top_first[0]))
    picked = [s for s in by_id.values() if wanted is None or s.id in wanted]
    return sorted(picked, key=lambda s: (s.topic, s.id))


def writable_root(root: Path, bundled: Path) -> Path:
    """`root`, where a command may write (cassettes, accepted outcomes); never the bundled data."""
    if root.resolve() == bundled.resolve():
        raise ScenarioError(
            "the bundled scenarios and cassettes are read-only; give a project root of your own "
            "(--root DIR; `conformance init` makes one layered over the bundled data)",
            where=str(root),
        )
    return root


def own_copy(scenario: Scenario, root: Path) -> Path:
    """The scenario's file inside `root`'s scenarios/: where it is when it lives there, else a copy made
    there at the same relative path (an override of the lower layer's, by id), so that a change to it
    is written into the top root and no lower layer is touched."""
    target_dir = (root / "scenarios").resolve()
    if scenario.path.resolve().is_relative_to(target_dir):
        return scenario.path
    for layer in scenario.layers:
        base = (layer / "scenarios").resolve()
        if scenario.path.resolve().is_relative_to(base):
            copy = root / "scenarios" / scenario.path.resolve().relative_to(base)
            break
    else:
        copy = root / "scenarios" / scenario.path.name
    if not copy.is_file():
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(scenario.path.read_bytes())
    return copy
