"""One YAML dialect: every bundled scenario and cassette loads to the same data with libyaml's
loader and with the pure-Python one (`fileio` falls back to it where PyYAML has no C extension),
and what the project writes (`fileio.dump_yaml`, used by `record --accept`) is checked the same way."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.fileio import LOADERS, dump_yaml

ROOT = Path(__file__).resolve().parents[1]
GROUPS = sorted(p for top in ("scenarios", "cassettes") for p in (ROOT / top).iterdir() if p.is_dir())


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML without libyaml: one loader only")
@pytest.mark.parametrize("group", GROUPS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_bundled_file_loads_the_same_with_both_loaders(group: Path) -> None:
    files = sorted(group.rglob("*.yaml"))
    assert files
    differ = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        c_data = yaml.load(text, Loader=yaml.CSafeLoader)
        try:
            py_data = yaml.load(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            differ.append(f"{path.relative_to(ROOT)}: the pure-Python loader refuses it ({exc.__class__.__name__})")
            continue
        if py_data != c_data:
            differ.append(f"{path.relative_to(ROOT)}: the loaders read different data")
    assert not differ, "\n".join(differ)


def test_both_loaders_are_checked_when_libyaml_is_there() -> None:
    assert yaml.SafeLoader in LOADERS
    assert len(LOADERS) == (2 if hasattr(yaml, "CSafeLoader") else 1)


@pytest.mark.parametrize(
    "data",
    [
        {"content": "When was Ruby 3.4.0 released? Search the web.", "then": "And Ruby 3.3.0?"},
        {"input": [{"role": "user", "content": "a: b, {c} [d] ? e # f"}], "n": 3, "x": None},
        {"multi": "line one\nline two\n", "unicode": "Ünïcødé \u2028 ok", "tab": "a\tb"},
    ],
)
def test_what_the_project_writes_reads_back_the_same_with_every_loader(data: dict[str, object]) -> None:
    text = dump_yaml(data, width=110)
    for loader in LOADERS:
        assert yaml.load(text, Loader=loader) == data


def test_a_document_one_loader_reads_otherwise_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    class Lossy(yaml.SafeLoader):
        """A loader that reads every string otherwise (stands in for a dialect difference)."""

    Lossy.add_constructor("tag:yaml.org,2002:str", lambda loader, node: "other")
    monkeypatch.setattr("conformance.fileio.LOADERS", (yaml.SafeLoader, Lossy))
    with pytest.raises(ValueError, match="Lossy"):
        dump_yaml({"a": "b"})
