"""Every red decode row and real call of the example adapters is the library's: the value the row
expects is not in the objects the library handed the adapter (tests/examples/library_keeps.py).

The scenario rows are those of the count runs (tests/examples/test_runtime_counts.py's, reused in
one process); each red one is decoded again with the library's objects recorded. A red row whose
runtime raised is the library's when the exception left the library, not the adapter."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conformance.harness import HarnessContext, run_all
from conformance.harness.real import cases, judge_call, judged_columns
from conformance.runtime.loading import load_runtime
from conformance.scenarios import load_scenarios
from tests.examples import library_warnings as warn
from tests.lazy import require

require("openai", "anthropic", "pydantic_ai")

from tests.examples.library_keeps import Probe, Recorder, kept  # noqa: E402  (httpx2, beside the libraries)

ROOT = Path(__file__).resolve().parents[2]
KNOWN: dict[str, dict[str, dict[str, str]]] = json.loads(
    (Path(__file__).parent / "library_keeps.json").read_text(encoding="utf-8")
)
"""Per adapter and kind (`rows`: `scenario[provider]`; `real`: a recorded call), the red rows whose
found values are not the adapter's to map — or not mapped yet — with why. A row found and not
listed, or listed and no longer found, fails the test: the list only shrinks by fixing the adapter."""


def _judge(label: str, kind: str, found: dict[str, list[str]]) -> None:
    known = KNOWN.get(label, {}).get(kind, {})
    new = [f"{row}: {'; '.join(values)}" for row, values in found.items() if row not in known]
    stale = [row for row in known if row not in found]
    assert not new, f"{label}: values the library keeps and the adapter leaves out:\n" + "\n".join(new)
    if COUNTS.RUNS[label].isolated:
        # its readings depend on what the process imported before (`Run.isolated`): beside the other
        # adapters, a listed value may not show; a value found and not listed still fails
        return
    assert not stale, f"{label}: listed in library_keeps.json, no longer found (remove them): {stale}"


pytestmark = [warn.INSTANCE_ATTRIBUTE, warn.DEPRECATED_MODEL, warn.SERIALIZER, warn.SAMPLING]


def _counts() -> ModuleType:
    """scripts/runtime_counts.py, the one module object the count test runs (its runs are cached there)."""
    if "runtime_counts" in sys.modules:
        return sys.modules["runtime_counts"]
    spec = importlib.util.spec_from_file_location("runtime_counts", ROOT / "scripts" / "runtime_counts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["runtime_counts"] = module
    spec.loader.exec_module(module)
    return module


COUNTS = _counts()
NOT_CHECKED: dict[str, str] = {}
"""Adapters whose rows this check does not read yet, with why (their red rows are read in docs/runtimes.md)."""
LABELS = [label for label, run in COUNTS.RUNS.items() if run.spec is not None and label not in NOT_CHECKED]


@cache
def _scenarios() -> dict[str, Any]:
    return {s.id: s for s in load_scenarios(ROOT / "scenarios")}


def _adapter(label: str) -> tuple[Any, str, ModuleType]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    spec = COUNTS.RUNS[label].spec
    runtime, name = load_runtime(spec)
    return runtime, name, importlib.import_module(spec.split(":")[0])


def _providers(label: str) -> list[str]:
    return [p for group in COUNTS.RUNS[label].groups for p in COUNTS.GROUPS[group]]


def _adapter_raised(probe: Probe) -> bool:
    return any(Path(file).resolve().is_relative_to(ROOT / "examples") for file in probe.raised_in)


@pytest.mark.parametrize("label", LABELS)
def test_no_red_decode_row_is_one_the_library_has_the_answer_to(label: str) -> None:
    runtime, name, module = _adapter(label)
    probe, recorder = Probe(runtime), Recorder(module)
    ctx = HarnessContext(root=ROOT, runtime=probe, runtime_name=name)
    found: dict[str, list[str]] = {}
    for group in COUNTS.RUNS[label].groups:
        for red in COUNTS._fresh(label, group)[1]:
            if red.verdict not in ("fail", "error") or red.check != "decode":
                continue
            recorder.objects.clear()
            probe.clear()
            with recorder.installed():
                (again,) = run_all([_scenarios()[red.scenario]], [red.provider], ctx)
            row = f"{red.scenario}[{red.provider}]"
            if _adapter_raised(probe):
                found.setdefault(row, []).append(f"the adapter raised: {again.reason}")
            paths = [entry.path for entry in again.diff]
            for path, value in kept(recorder.objects, paths, again.expected, probe.outputs):
                found.setdefault(row, []).append(f"{path}: {str(value)[:80]!r}")
    _judge(label, "rows", found)


@pytest.mark.parametrize("label", LABELS)
def test_no_failing_real_call_is_one_the_library_has_the_answer_to(label: str) -> None:
    runtime, name, module = _adapter(label)
    probe, recorder = Probe(runtime), Recorder(module)
    ctx = HarnessContext(root=ROOT, runtime=probe, runtime_name=name)
    everything = cases()
    columns = set(judged_columns(_providers(label), {c.column for c in everything}))
    found: dict[str, list[str]] = {}
    with recorder.installed():
        for case in everything:
            if case.column not in columns or case.expected is None:
                continue
            recorder.objects.clear()
            probe.clear()
            judged = judge_call(case, ctx)
            if judged.verdict == "error" and _adapter_raised(probe):
                found.setdefault(case.call.where, []).append(f"the adapter raised: {judged.reason}")
            if judged.verdict != "fail":
                continue
            paths = [entry.path for entry in judged.diff]
            for path, value in kept(recorder.objects, paths, case.expected.outcome, probe.outputs):
                found.setdefault(case.call.where, []).append(f"{path}: {str(value)[:80]!r}")
    _judge(label, "real", found)
