"""The harness never dies on a result: whatever a runtime returns is saved in matrix.json and judged."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from conformance.cli import main
from conformance.harness import HarnessContext, run_all
from conformance.harness.run import build_matrix
from conformance.jsonvalue import MAX_CHARS, MAX_DEPTH, safe
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness.hostile import HOSTILE, HostileRuntime, poison

ROOT = Path(__file__).resolve().parents[2]
ROWS = (
    "transcript_lone_surrogate",  # the row about lone surrogates: its own output holds one
    "tool_call_stream",  # decode
    "encode_tool_history",  # encode
    "repair_orphan_tool_result",  # repair
    "retry_429_retry_after",  # turn
    "token_count_usage_baseline",  # context
    "store_edit",  # store
)
"""One row per capability."""
WHOLE_CORPUS = ("generated_repair", "generated_rechunk", "handoff_all_providers")
"""Rows that read every provider's cassettes: run once, through the command."""
PAIR = ["anthropic", "gemini"]


@pytest.fixture(scope="module")
def rows() -> list[Scenario]:
    chosen = [s for s in load_scenarios(ROOT / "scenarios") if s.id in ROWS]
    assert {s.id for s in chosen} == set(ROWS)
    return chosen


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_every_capability_answering_a_hostile_value_is_judged_and_saved(
    kind: str, rows: list[Scenario], tmp_path: Path
) -> None:
    ctx = HarnessContext(root=ROOT, runtime=HostileRuntime(kind), runtime_name=f"hostile-{kind}")
    ctx.extras["examples"] = 4
    results = run_all(rows, PAIR, ctx)
    by_row = {(r.scenario, r.provider): r for r in results}
    assert len(by_row) == len(ROWS) * len(PAIR)
    # judged like any answer: a poison in a compared field fails the row (one in an ignored field, such
    # as a warning's prose, or the same poison under every split of a stream, may pass); the harness
    # itself never crashes on it
    assert not any("RecursionError" in r.reason or "serializ" in r.reason for r in results)
    assert sum(r.verdict == "fail" for r in results) >= len(results) // 2, {k: r.verdict for k, r in by_row.items()}
    assert by_row["transcript_lone_surrogate", "anthropic"].verdict == "fail"
    matrix = build_matrix(results, PAIR, ctx, scenario_dir=ROOT / "scenarios")
    matrix.save(tmp_path / "matrix.json")
    saved = orjson.loads((tmp_path / "matrix.json").read_bytes())  # strict JSON: no NaN, no lone surrogate
    assert saved["runtime"] == f"hostile-{kind}"
    assert matrix.failed()


class KeepsTheHalfSurrogate(ReferenceRuntime):
    """Loads the transcript without mending the half surrogate pair (it keeps `\\ud83d` as read)."""

    name = "keeps-half-surrogate"

    def load_transcript(self, path: str) -> dict[str, Any]:
        out = super().load_transcript(path)
        for message in out["messages"]:
            if message["role"] == "tool_result":
                message["content"] = [{"type": "text", "text": "Bin grad uninformiert \ud83d"}]
        return out


def test_the_row_about_lone_surrogates_fails_and_shows_the_escape(rows: list[Scenario], tmp_path: Path) -> None:
    ctx = HarnessContext(root=ROOT, runtime=KeepsTheHalfSurrogate(), runtime_name="keeps")
    row = [s for s in rows if s.id == "transcript_lone_surrogate"]
    results = run_all(row, ["openai"], ctx)
    assert results[0].verdict == "fail"
    assert [(d.expected, d.actual) for d in results[0].diff] == [
        ("Bin grad uninformiert \ufffd", "Bin grad uninformiert \\ud83d")  # the half, shown as its escape
    ]
    build_matrix(results, ["openai"], ctx, scenario_dir=ROOT / "scenarios").save(tmp_path / "matrix.json")
    assert "uninformiert \\\\ud83d" in (tmp_path / "matrix.json").read_text(encoding="utf-8")


def test_safe_escapes_what_json_cannot_hold() -> None:
    value = poison({"a": ["text", 1.5], "b": "last"}, "\ud83d")
    assert safe(value) == {"a": ["text", 1.5], "b": "\\ud83d"}
    assert safe({"\udfff": 1}) == {"\\udfff": 1}
    assert safe([math.nan, math.inf, -math.inf]) == ["NaN", "Infinity", "-Infinity"]
    assert safe({1: b"\xff", None: {3}, 2.5: (1,)}) == {"1": "b'\\xff'", "null": [3], "2.5": [1]}
    deep = HOSTILE["deep"]()
    out = safe(deep)
    orjson.dumps(out)
    level = 0
    while isinstance(out, list):
        out, level = out[0], level + 1
    assert level == MAX_DEPTH and "deeper than" in out
    short = safe("y" * (MAX_CHARS + 10), shorten=True)
    assert short.startswith("y" * MAX_CHARS) and short.endswith(f"[10 more characters, {MAX_CHARS + 10:,} in all]")
    plain = {"k": ["v", 1, None, True]}
    assert safe(plain) is plain  # nothing to escape: the same object, no copy


def test_conformance_run_with_a_hostile_runtime_writes_a_matrix_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "out"
    args = ["run", "--runtime", "tests.harness.hostile:make", "--provider", "openai", "--provider", "gemini"]
    for row in (*ROWS, *WHOLE_CORPUS):
        args += ["--scenario", row]
    assert main([*args, "--out", str(out), "--no-progress", "--jobs", "2", "--examples", "4"]) == 1
    matrix = orjson.loads((out / "matrix.json").read_bytes())
    assert matrix["scenario_counts"]["fail"] > 0
    assert (out / "index.html").is_file()
    assert "Traceback" not in capsys.readouterr().err


def test_the_command_itself_never_prints_a_traceback(tmp_path: Path) -> None:
    """The console script as a user types it, in its own process (forked workers included)."""
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--runtime", "tests.harness.hostile:make"]
    cmd += ["--provider", "anthropic", "--scenario", "transcript_lone_surrogate", "--scenario", "tool_call_stream"]
    done = subprocess.run(
        [*cmd, "--out", str(tmp_path), "--no-progress", "--no-html"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    orjson.loads((tmp_path / "matrix.json").read_bytes())
