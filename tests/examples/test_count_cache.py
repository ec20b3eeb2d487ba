"""scripts/count_cache.py: a stored count run is read again only while no input that can change a
verdict changed — the data, the code, a library's version, the Python or Node version, the
environment that sets a run — and `CONFORMANCE_COUNT_CACHE=0` turns it off."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """count_cache over a small project of its own (every input folder, one file each), stored in `tmp_path/cache`."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    module = importlib.import_module("count_cache")
    root = tmp_path / "project"
    for name in ("scenarios/a.yaml", "cassettes/openai/a.yaml", "corpus/openai/r.json", "examples/adapter.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    (root / "scripts").mkdir()
    (root / "scripts" / "counts.py").write_text("x = 1")
    (root / "pyproject.toml").write_text("[project]")
    (root / "examples" / "typescript").mkdir()
    (root / "examples" / "typescript" / "package-lock.json").write_text("{}")
    package = tmp_path / "conformance"
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.setattr(module, "ROOT", root)
    monkeypatch.setattr(importlib.import_module("conformance"), "__file__", str(package / "__init__.py"))
    monkeypatch.setattr(module, "node_version", lambda: "v22.0.0")
    monkeypatch.delenv(module.ENV, raising=False)
    previous = module._folder
    module.use(tmp_path / "cache")
    module.inputs_digest.cache_clear()
    module.installed_versions.cache_clear()
    yield module
    module.use(previous)
    module.inputs_digest.cache_clear()
    module.installed_versions.cache_clear()


def _runs(cache: ModuleType, name: str = "counts x", node: bool = False) -> Callable[[], Any]:
    """A function reading the run `name` through the cache; `.made` counts the runs made."""
    made: list[int] = []

    def read() -> Any:
        def compute() -> dict[str, int]:
            made.append(1)
            return {"pass": len(made)}

        # a new process: the digest computed again (the installed versions it reads once per process
        # are read again by the change that bumps one, `_library`)
        cache.inputs_digest.cache_clear()
        return cache.stored(name, compute, node=node)

    read.made = made  # type: ignore[attr-defined]
    return read


def test_a_run_is_made_once_and_read_back(cache: ModuleType, tmp_path: Path) -> None:
    read = _runs(cache)
    assert read() == {"pass": 1}
    assert read() == {"pass": 1}
    assert len(read.made) == 1  # type: ignore[attr-defined]
    other = _runs(cache, "counts y")
    assert other() == {"pass": 1} and len(other.made) == 1  # type: ignore[attr-defined]  # its own entry
    (folder,) = (tmp_path / "cache").iterdir()
    assert len(list(folder.iterdir())) == 2


def _edit(path: str) -> Callable[[ModuleType, pytest.MonkeyPatch], None]:
    def change(cache: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
        target = cache.ROOT / path
        target.write_text(target.read_text() + " changed")

    return change


def _conformance(cache: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    package = Path(importlib.import_module("conformance").__file__ or "").parent
    (package / "harness.py").write_text("")


def _added_scenario(cache: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    (cache.ROOT / "scenarios" / "b.yaml").write_text("id: b")


def _library(cache: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    installed = list(cache.metadata.distributions())
    bumped = [SimpleNamespace(metadata={"Name": d.metadata["Name"]}, version=d.version + ".1") for d in installed[:1]]
    monkeypatch.setattr(cache.metadata, "distributions", lambda: bumped + installed[1:])
    cache.installed_versions.cache_clear()  # the next process reads the bumped version


def _python(cache: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")


def _environment(cache: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "deep-changed")


CHANGES: dict[str, Callable[[ModuleType, pytest.MonkeyPatch], None]] = {
    "scenario": _edit("scenarios/a.yaml"),
    "added-scenario": _added_scenario,
    "cassette": _edit("cassettes/openai/a.yaml"),
    "corpus": _edit("corpus/openai/r.json"),
    "example-adapter": _edit("examples/adapter.py"),
    "script": _edit("scripts/counts.py"),
    "pyproject": _edit("pyproject.toml"),
    "npm-lock": _edit("examples/typescript/package-lock.json"),
    "conformance-package": _conformance,
    "library-version": _library,
    "python-version": _python,
    "environment": _environment,
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_changed_input_makes_the_run_again_and_drops_the_old_one(
    change: str, cache: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    read = _runs(cache)
    assert read() == {"pass": 1}
    (before,) = (tmp_path / "cache").iterdir()
    CHANGES[change](cache, monkeypatch)
    assert read() == {"pass": 2}
    assert read() == {"pass": 2}
    (after,) = (tmp_path / "cache").iterdir()
    assert after != before  # the stale digest's runs are removed


def test_a_node_run_is_made_again_for_another_node(cache: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    read = _runs(cache, "typescript x", node=True)
    assert read() == read() == {"pass": 1}
    monkeypatch.setattr(cache, "node_version", lambda: "v24.0.0")
    assert read() == {"pass": 2}


def test_the_environment_variable_turns_it_off(
    cache: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(cache.ENV, "0")
    read = _runs(cache)
    assert [read(), read()] == [{"pass": 1}, {"pass": 2}]
    assert not (tmp_path / "cache").exists()


def test_without_a_folder_every_run_is_fresh(cache: ModuleType, tmp_path: Path) -> None:
    cache.use(None)
    read = _runs(cache)
    assert [read(), read()] == [{"pass": 1}, {"pass": 2}]
    assert not (tmp_path / "cache").exists()


def test_the_stored_runs_hold_no_value_of_the_environment(
    cache: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CONFORMANCE_SECRET_TOKEN", "sk-not-to-be-written")
    _runs(cache)()
    written = "".join(p.read_text() for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert "sk-not-to-be-written" not in written and "counts x" in written
