"""`conformance check --json`: one JSON object with the verdict, the typed differences, expected and actual."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
OUTCOME: dict[str, Any] = {  # text_basic as OpenAI's docs show the exchange, in the normalized form
    "message": {
        "role": "assistant",
        "content": [{"type": "text", "text": "Hello, conformance suite! Nice to meet you."}],
        "stop_reason": "stop",
        "raw_stop_reason": "stop",
        "usage": {"input_tokens": 22, "output_tokens": 11},
    }
}


def _check(tmp_path: Path, capsys: pytest.CaptureFixture[str], actual: Any, *extra: str) -> tuple[int, Any]:
    path = tmp_path / "actual.json"
    path.write_text(json.dumps(actual))
    args = ["check", "text_basic", "--provider", "openai", "--actual", str(path), "--root", str(ROOT), *extra]
    code = main([*args, "--json"])
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one object, one line
    return code, json.loads(out)


def test_a_match_is_pass_with_no_differences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, got = _check(tmp_path, capsys, OUTCOME)
    assert code == 0
    assert got["verdict"] == "pass" and got["fail_kind"] is None and got["differences"] == []
    assert (got["scenario"], got["provider"], got["check"]) == ("text_basic", "openai", "decode")
    assert got["expected"]["message"]["content"] == OUTCOME["message"]["content"]


def test_each_difference_is_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    actual = copy.deepcopy(OUTCOME)
    actual["message"]["content"][0]["text"] = "Hello!"  # wrong
    del actual["message"]["raw_stop_reason"]  # missing
    actual["message"]["content"].append({"type": "text", "text": "again"})  # extra
    code, got = _check(tmp_path, capsys, actual)
    assert code == 1
    assert got["verdict"] == "fail" and got["fail_kind"] == "wrong"
    by_path = {d["path"]: d for d in got["differences"]}
    assert by_path["message.content[0].text"] == {
        "path": "message.content[0].text",
        "change": "changed",
        "kind": "wrong",
        "expected": "Hello, conformance suite! Nice to meet you.",
        "actual": "Hello!",
    }
    assert by_path["message.raw_stop_reason"]["kind"] == "missing"
    assert by_path["message.content[1]"]["kind"] == "extra"
    assert got["actual"]["message"]["content"][0]["text"] == "Hello!"


def test_an_unsupported_row_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "actual.json"
    path.write_text(json.dumps(OUTCOME))
    args = ["check", "gemini_numeric_enums", "--provider", "openai", "--actual", str(path), "--root", str(ROOT)]
    code = main([*args, "--json"])
    got = json.loads(capsys.readouterr().out)
    assert code == 0 and got["verdict"] == "unsupported" and got["reason"]


def test_without_json_the_text_is_unchanged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "actual.json"
    path.write_text(json.dumps(OUTCOME))
    code = main(["check", "text_basic", "--provider", "openai", "--actual", str(path), "--root", str(ROOT)])
    assert code == 0
    assert capsys.readouterr().out.startswith("pass: text_basic[openai] matches the expected normalized form")


def test_a_red_result_names_its_evidence_and_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    actual = copy.deepcopy(OUTCOME)
    actual["message"]["stop_reason"] = "length"
    code, got = _check(tmp_path, capsys, actual)
    assert code == 1 and got["basis"] == "provider"
    # the bundled cassette is authored, every shape of it one real OpenAI traffic shows; the row's
    # expectation cites no source: the wrong value cannot be called a defect
    assert got["wire_source"] == "authored: matches real openai traffic (all 6 shapes seen)"
    assert got["rule_source"] is None and got["class"] == "unverified"


def test_a_policy_row_that_differs_only_from_the_recommendation_is_not_a_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check` is given no declared policy: a token limit passed through as the caller asked it
    differs from the recommended clamp, and nothing else."""
    from conformance.scenarios import load_scenarios

    (scenario,) = load_scenarios(ROOT / "scenarios", only=["encode_max_tokens_output_limit"])
    body = copy.deepcopy(scenario.expected_for("openai"))
    body["max_completion_tokens"] = 1_000_000
    path = tmp_path / "actual.json"
    path.write_text(json.dumps(body))
    args = ["check", "encode_max_tokens_output_limit", "--provider", "openai", "--actual", str(path)]
    code = main([*args, "--root", str(ROOT), "--json"])
    got = json.loads(capsys.readouterr().out)
    assert (code, got["verdict"], got["class"], got["basis"]) == (0, "policy", "policy", "policy")
    assert got["differences"][0]["basis"] == "policy"
