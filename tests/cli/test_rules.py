"""`conformance rules` prints the rule book; `conformance rules check` reads wire requests as a provider would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main


def test_the_book_lists_every_rule_with_scope_source_and_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--provider", "gemini", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    by_id = {e["id"]: e for e in entries}
    assert "call_after_user" in by_id and "gemini-cli/issues/11814" in by_id["call_after_user"]["source"]
    assert "gemini-pro" in by_id["alternation"]["scope"] and "real 2xx" in by_id["alternation"]["scope"]
    assert not by_id["schema_keyword.$comment"]["sourced"]
    assert all(e["checked"] for e in entries)


def test_the_book_of_one_provider_leaves_out_rules_scoped_elsewhere(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--provider", "azure"]) == 0
    text = capsys.readouterr().out
    assert "- model_required " not in text and "- field.max_tokens " in text


def test_check_exits_1_on_a_sourced_rule_and_names_its_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = tmp_path / "requests.jsonl"
    good = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    bad = {"contents": [{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}]}
    url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    requests.write_text("\n".join(json.dumps({"url": url, "body": b}) for b in (good, bad)) + "\n")
    assert main(["rules", "check", "--provider", "gemini", str(requests)]) == 1
    out = capsys.readouterr().out
    assert f"{requests}:1: 0 failing" in out and f"{requests}:2: 2 failing" in out
    assert "gemini-cli/issues/11814" in out
    body = tmp_path / "body.json"
    body.write_text(json.dumps(good))
    assert main(["rules", "check", "--provider", "gemini", str(body), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"line": 1, "findings": []}]


def test_check_names_the_line_of_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_text('{"url": "u", "body": {}}\n{"url": \n')
    assert main(["rules", "check", "--provider", "openai", str(requests)]) == 2
    err = capsys.readouterr().err
    assert f"{requests}:2" in err and "Traceback" not in err
