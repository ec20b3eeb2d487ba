"""The TypeScript adapters (examples/typescript) speak the runtime protocol v1 and answer through
their libraries: the handshake declares what each library offers, and decode reads a recorded
stream with the library's own parser."""

from __future__ import annotations

import base64
import importlib.util
import json
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conformance.fileio import parse_yaml

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "examples" / "typescript"
ADAPTERS = ("pi_ai.mjs", "ai_sdk.mjs")

needs_node = pytest.mark.skipif(
    shutil.which("node") is None or not (TS / "node_modules").is_dir(),
    reason="needs node and the TypeScript libraries: (cd examples/typescript && npm ci)",
)


class _Program:
    """One adapter program started for the module's protocol tests: each test's requests go over its
    stdin, each answer read back with the request's id; at the end `shutdown` is answered and the
    program exits 0 with nothing else written."""

    def __init__(self, adapter: str, stderr: Path) -> None:
        self._stderr_path = stderr
        self._stderr = stderr.open("w")
        self.proc = subprocess.Popen(
            ["node", str(TS / adapter)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip():
                self._lines.put(line)
        self._lines.put(None)  # the program closed its stdout

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """The program's answer to `request` (given the next id)."""
        ident, self._next = self._next, self._next + 1
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"id": ident, **request}) + "\n")
        self.proc.stdin.flush()
        line = self._lines.get(timeout=120)
        assert line is not None, f"the program ended without answering: {self._stderr_path.read_text()[-2000:]}"
        answer: dict[str, Any] = json.loads(line)
        assert answer["id"] == ident, answer
        return answer

    def shutdown(self) -> None:
        try:
            assert self.ask({"method": "shutdown", "params": {}})["result"] is None
            assert self.proc.wait(timeout=120) == 0, self._stderr_path.read_text()[-2000:]
            assert self._lines.get(timeout=120) is None  # nothing written after the shutdown's answer
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._reader.join(timeout=120)
            for pipe in (self.proc.stdin, self.proc.stdout, self._stderr):
                if pipe is not None:
                    pipe.close()


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], _Program]]:
    """Each adapter's program, started once for the module's protocol tests (their subject is what it
    answers, not its start)."""
    started: dict[str, _Program] = {}
    folder = tmp_path_factory.mktemp("programs")

    def program(adapter: str) -> _Program:
        if adapter not in started:
            started[adapter] = _Program(adapter, folder / f"{adapter}.stderr")
        return started[adapter]

    yield program
    for each in started.values():
        each.shutdown()


def _decode_params(provider: str, scenario: str) -> dict[str, Any]:
    cassette = parse_yaml((ROOT / "cassettes" / provider / f"{scenario}.yaml").read_text())
    response = cassette["interactions"][0]["response"]
    body = response["body"]["string"]
    return {
        "provider": provider,
        "status": response["status"]["code"],
        "headers": response["headers"],
        "chunks": [base64.b64encode(body.encode()).decode()],
        "stream": True,
    }


@needs_node
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_handshake_declares_the_library(adapter: str, programs: Callable[[str], _Program]) -> None:
    answer = programs(adapter).ask({"method": "handshake", "params": {"protocol": 1}})
    result = answer["result"]
    assert result["protocol"] == 1
    assert (
        result["version"]
        == json.loads((TS / "package.json").read_text())["dependencies"][
            {"pi_ai.mjs": "@mariozechner/pi-ai", "ai_sdk.mjs": "ai"}[adapter]
        ]
    )
    assert set(result["capabilities"]) == {"encode", "decode", "turn"}
    assert {"openai", "anthropic"} <= set(result["providers"])


@needs_node
@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_decode_reads_a_tool_call_stream(adapter: str, provider: str, programs: Callable[[str], _Program]) -> None:
    answer = programs(adapter).ask({"method": "decode", "params": _decode_params(provider, "tool_call_stream")})
    message = answer["result"]["message"]
    assert message["stop_reason"] == "tool_use"
    (call,) = message["content"]
    assert (call["name"], call["arguments"]) == ("get_weather", {"city": "Tokyo", "unit": "celsius"})


@needs_node
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_unknown_method_is_an_error_answer(adapter: str, programs: Callable[[str], _Program]) -> None:
    answer = programs(adapter).ask({"method": "transcripts", "params": {}})
    assert "unknown method" in answer["error"]["message"]


@needs_node
def test_the_readme_command_writes_a_matrix_and_a_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`conformance run --runtime-cmd "node examples/typescript/pi_ai.mjs" --provider openai --provider anthropic`."""
    from conformance.cli import main

    monkeypatch.chdir(ROOT)
    out = tmp_path / "pi-ai"
    args = [
        "run",
        "--runtime-cmd",
        "node examples/typescript/pi_ai.mjs",
        "--provider",
        "openai",
        "--provider",
        "anthropic",
    ]
    assert main([*args, "--out", str(out), "--no-progress"]) in (0, 1)  # 1: the library has failing rows
    matrix = json.loads((out / "matrix.json").read_text())
    assert (
        matrix["runtime"]
        == "pi-ai " + json.loads((TS / "package.json").read_text())["dependencies"]["@mariozechner/pi-ai"]
    )
    assert (out / "index.html").is_file()
    verdicts = {r["verdict"] for cell in matrix["cells"] for r in cell["results"] if r["check"] == "retry"}
    assert "skipped" not in verdicts  # turn rows are judged through the program, not skipped


@needs_node
def test_the_readme_command_judges_turn_rows_through_the_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's command over a decode row and a turn row (every row: the test above, `pytest -m full`),
    its four rows through one program (`--jobs 1`; the programs a run starts side by side are
    tests/runtime/test_process_jobs.py's, and the full step's run above starts them for pi-ai)."""
    from conformance.cli import main

    monkeypatch.chdir(ROOT)
    out = tmp_path / "pi-ai"
    args = ["run", "--runtime-cmd", "node examples/typescript/pi_ai.mjs", "--provider", "openai"]
    args += ["--provider", "anthropic", "--scenario", "tool_call_stream", "--scenario", "retry_never_invalid_request"]
    args += ["--jobs", "1"]
    assert main([*args, "--out", str(out), "--no-progress"]) in (0, 1)
    matrix = json.loads((out / "matrix.json").read_text())
    assert matrix["runtime"].startswith("pi-ai ")
    assert (out / "index.html").is_file()
    judged = {(r["check"], r["verdict"]) for cell in matrix["cells"] for r in cell["results"]}
    assert {check for check, _ in judged} == {"decode", "retry"}
    assert "skipped" not in {verdict for _, verdict in judged}  # turn rows are judged through the program


def _counts_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("typescript_counts", ROOT / "scripts" / "typescript_counts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("typescript_counts", module)
    spec.loader.exec_module(module)
    return module


@needs_node
@pytest.mark.parametrize("label", ["pi-ai", "pi-ai (decode only)", "ai-sdk", "ai-sdk (decode only)"])
def test_the_documented_counts_are_reproduced(label: str) -> None:
    counts = _counts_script()
    for fresh in counts.render(counts.count(label)).splitlines()[2:]:
        provider = fresh.split(" | ")[1]
        assert fresh == counts.documented_row(label, provider), (
            f"docs/runtimes.md's TypeScript counts for {label} drifted; `python scripts/typescript_counts.py "
            "--write` rewrites the table — then read the changed cells and update their classification"
        )


def test_the_libraries_are_pinned_exactly() -> None:
    """package.json names exact versions, the ones package-lock.json installs (the counts are for them)."""
    wanted = json.loads((TS / "package.json").read_text())["dependencies"]
    locked = json.loads((TS / "package-lock.json").read_text())["packages"]
    for name, version in wanted.items():
        assert version[0].isdigit(), f"{name}: {version} is a range; pin an exact version"
        assert locked[f"node_modules/{name}"]["version"] == version, f"{name}: package-lock.json differs"
