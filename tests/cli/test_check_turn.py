"""`conformance check --request-log`: a retry scenario run out of process, judged from the log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.scenarios import load_scenarios
from conformance.secrets import key_fingerprint

ROOT = Path(__file__).resolve().parents[2]


def _entry(seq: int, t: float, interaction: int | None, key: str = "replay-key-0") -> dict[str, Any]:
    return {
        "seq": seq,
        "t": t,
        "method": "POST",
        "path": "/openai/v1/chat/completions",
        "query": "",
        "provider": "openai",
        "cassette": "cassettes/openai/retry_429_retry_after.yaml",
        "interaction": interaction,
        "headers": {"authorization": key_fingerprint(key)},
        "body": {},
        "status": 429 if interaction == 0 else 200,
    }


def _run(tmp_path: Path, log: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    (scenario,) = load_scenarios(ROOT / "scenarios", only=["retry_429_retry_after"])
    outcome = {"message": scenario.expected_for("openai")["message"]}
    (tmp_path / "out.json").write_text(json.dumps(outcome))
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    args = ["check", "retry_429_retry_after", "--provider", "openai", "--root", str(ROOT)]
    code = main([*args, "--actual", str(tmp_path / "out.json"), "--request-log", str(tmp_path / "log.jsonl")])
    return code, capsys.readouterr().out


def test_a_runtime_that_waits_out_retry_after_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(tmp_path, [_entry(0, 0.01, 0), _entry(1, 30.2, 1)], capsys)
    assert code == 0, out
    assert out.startswith("pass: retry_429_retry_after[openai]")


def test_a_runtime_that_retries_at_once_fails_on_the_wait(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(tmp_path, [_entry(0, 0.01, 0), _entry(1, 1.0, 1)], capsys)
    assert code == 1
    assert "waits[0]" in out and "[29.75," in out


def test_a_request_no_interaction_matched_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(tmp_path, [_entry(0, 0.01, 0), _entry(1, 30.2, None)], capsys)
    assert code == 1
    assert "a request no recorded interaction matches" in out
    assert "interactions [1]" in out  # and the success was never asked for


def test_a_malformed_log_line_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "out.json").write_text("{}")
    (tmp_path / "log.jsonl").write_text('{"seq": 0, "t": 0}\nnot json\n')
    args = ["check", "retry_429_retry_after", "--provider", "openai", "--root", str(ROOT)]
    code = main([*args, "--actual", str(tmp_path / "out.json"), "--request-log", str(tmp_path / "log.jsonl")])
    assert code == 2
    assert "log.jsonl:2: not a JSON object" in capsys.readouterr().err.replace("\n", " ")


def test_json_types_the_wait_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (scenario,) = load_scenarios(ROOT / "scenarios", only=["retry_429_retry_after"])
    (tmp_path / "out.json").write_text(json.dumps({"message": scenario.expected_for("openai")["message"]}))
    log = [_entry(0, 0.01, 0), _entry(1, 1.0, 1)]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    args = ["check", "retry_429_retry_after", "--provider", "openai", "--root", str(ROOT), "--json"]
    code = main([*args, "--actual", str(tmp_path / "out.json"), "--request-log", str(tmp_path / "log.jsonl")])
    got = json.loads(capsys.readouterr().out)
    assert code == 1 and got["verdict"] == "fail" and got["check"] == "retry"
    (wait,) = [d for d in got["differences"] if d["path"] == "waits[0]"]
    assert wait["kind"] == "wrong" and wait["expected"].startswith("[29.75,")
