"""Every red decode row of the TypeScript adapters is the library's: the value the row expects is not
in the objects the library handed the adapter (tests/examples/library_keeps.py's `kept`).

Each adapter of scripts/typescript_counts.py (and its decode-only form) runs with its library probe
on (`CONFORMANCE_LIBRARY_PROBE`, examples/typescript/lib/protocol.mjs): every decode appends the
library's own objects — the AI SDK's result, stream parts and error; pi-ai's events and
AssistantMessage — as JSON lines. Each decode row runs alone, so the lines it added are its own.
A red row whose adapter, not the library, raised is the adapter's too."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conformance.adapters import DecodeOnly
from conformance.harness import HarnessContext, run_all
from conformance.runtime.process import ProcessRuntime
from conformance.runtime.program import RemoteError
from conformance.scenarios import load_scenarios
from tests.examples.library_keeps import kept

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "examples" / "typescript"
KNOWN: dict[str, dict[str, dict[str, str]]] = json.loads(
    (Path(__file__).parent / "library_keeps.json").read_text(encoding="utf-8")
)
"""The listed rows (`rows`: `scenario[provider]`) per adapter label, with why (as for the Python adapters)."""

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (TS / "node_modules").is_dir(),
    reason="needs node and the TypeScript libraries: (cd examples/typescript && npm ci)",
)


def _counts() -> ModuleType:
    """scripts/typescript_counts.py (its RUNS and PROVIDERS)."""
    if "typescript_counts" in sys.modules:
        return sys.modules["typescript_counts"]
    spec = importlib.util.spec_from_file_location("typescript_counts", ROOT / "scripts" / "typescript_counts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["typescript_counts"] = module
    spec.loader.exec_module(module)
    return module


COUNTS = _counts()


class Probe:
    """A program whose `decode` answers (`outputs`) and raised errors (`raised`) are kept."""

    def __init__(self, program: ProcessRuntime) -> None:
        self._program = program
        self.outputs: list[Any] = []
        self.raised: list[RemoteError] = []

    def decode(
        self,
        provider: str,
        status: int,
        headers: dict[str, str],
        chunks: list[bytes],
        stream: bool,
        *,
        model: str | None = None,
        conversation: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        try:
            out = self._program.decode(
                provider, status, headers, chunks, stream, model=model, conversation=conversation
            )
        except RemoteError as exc:
            self.raised.append(exc)
            raise
        self.outputs.append(out)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._program, name)


def _adapter_raised(error: RemoteError) -> bool:
    """The error was made in the adapter (the top frame of its JavaScript stack is an adapter file)."""
    frames = [line.strip() for line in (error.remote_traceback or "").splitlines() if line.strip().startswith("at ")]
    return bool(frames) and str(TS) in frames[0] and "node_modules" not in frames[0]


@cache
def _decode_scenarios() -> list[Any]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.check == "decode"]


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], tuple[ProcessRuntime, Path]]]:
    """Each adapter's program with its library probe on (`CONFORMANCE_LIBRARY_PROBE`, read when it
    starts), started once for the module: an adapter and its decode-only form send the same program
    the same decode calls. Each row reads the lines written from its own start on."""
    folder = tmp_path_factory.mktemp("library-probe")
    started: dict[str, tuple[ProcessRuntime, Path]] = {}
    with pytest.MonkeyPatch.context() as patch:

        def program(name: str) -> tuple[ProcessRuntime, Path]:
            if name not in started:
                lines = folder / f"{name}.jsonl"
                lines.touch()
                patch.setenv("CONFORMANCE_LIBRARY_PROBE", str(lines))
                started[name] = (ProcessRuntime(f"node {TS / name}"), lines)
            return started[name]

        try:
            yield program
        finally:
            for runtime, _ in started.values():
                runtime.close()


@pytest.mark.parametrize("label", list(COUNTS.RUNS))
def test_no_red_decode_row_is_one_the_library_has_the_answer_to(
    label: str, programs: Callable[[str], tuple[ProcessRuntime, Path]]
) -> None:
    run = COUNTS.RUNS[label]
    program, lines = programs(run.program)
    probe = Probe(program)
    runtime: Any = DecodeOnly(probe) if run.decode_only else probe
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=runtime.name)
    found: dict[str, list[str]] = {}
    red = 0
    for scenario in _decode_scenarios():
        for provider in COUNTS.PROVIDERS:
            probe.outputs.clear()
            probe.raised.clear()
            start = lines.stat().st_size
            results = run_all([scenario], [provider], ctx)
            reds = [r for r in results if r.verdict in ("fail", "error") and r.check == "decode"]
            if not reds:
                continue
            red += len(reds)
            with lines.open(encoding="utf-8") as f:
                f.seek(start)
                objects = [json.loads(line)["object"] for line in f if line.strip()]
            row = f"{scenario.id}[{provider}]"
            for result in reds:
                if any(_adapter_raised(e) for e in probe.raised):
                    found.setdefault(row, []).append(f"the adapter raised: {result.reason}")
                paths = [entry.path for entry in result.diff]
                for path, value in kept(objects, paths, result.expected, probe.outputs):
                    if path.rsplit(".", 1)[-1] == "role":
                        continue  # a message's role is its kind, as a block's `type` is (JUDGEMENTS)
                    found.setdefault(row, []).append(f"{path}: {str(value)[:80]!r}")
    assert red, f"{label}: no red decode row was judged (did the program run?)"
    known = KNOWN.get(label, {}).get("rows", {})
    new = [f"{row}: {'; '.join(values)}" for row, values in found.items() if row not in known]
    stale = [row for row in known if row not in found]
    assert not new, f"{label}: values the library keeps and the adapter leaves out:\n" + "\n".join(new)
    assert not stale, f"{label}: listed in library_keeps.json, no longer found (remove them): {stale}"
