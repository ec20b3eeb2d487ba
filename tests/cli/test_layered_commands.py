"""record, lint, check and sync-requests over layered roots, as `run` takes them: every layer is
read, and what they write goes into the top root, never into the bundled data."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import httpx
import pytest

from conformance.cli import main
from conformance.data import bundled_root
from conformance.fileio import parse_yaml
from tests.harness.project import make_user_root

BUNDLED = bundled_root()
REPLY = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [{"type": "text", "text": "Recorded here."}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 12, "output_tokens": 4},
}


def _digest(*paths: Path) -> list[str]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]


@pytest.fixture
def mine(tmp_path: Path) -> Path:
    return make_user_root(tmp_path / "mine", BUNDLED / "scenarios")


@pytest.fixture
def replies(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every recording answered on this machine: the URLs asked for."""
    seen: list[str] = []
    real = httpx.Client

    def reply(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, json=REPLY, headers={"content-type": "application/json"})

    def client(**kwargs: object) -> httpx.Client:  # a replay brings its own transport: left as it is
        if kwargs.get("transport") is None:
            kwargs["transport"] = httpx.MockTransport(reply)
        return real(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("conformance.harness.record.httpx.Client", client)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key-000000")
    return seen


def test_record_writes_into_the_top_root_and_accepts_into_a_copy(
    mine: Path, replies: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    bundled = [BUNDLED / "scenarios/responses/stop_length.yaml", BUNDLED / "cassettes/anthropic/stop_length.yaml"]
    before = _digest(*bundled)
    args = ["record", "--provider", "anthropic", "--root", str(mine), "--scenario", "stop_length"]
    assert main([*args, "--record-mode", "all", "--accept", "--no-progress"]) == 0
    assert "recorded anthropic/stop_length" in capsys.readouterr().out
    assert len(replies) == 1
    cassette = parse_yaml((mine / "cassettes/anthropic/stop_length.yaml").read_text())
    assert "Recorded here." in cassette["interactions"][0]["response"]["body"]["string"]
    copy = parse_yaml((mine / "scenarios/responses/stop_length.yaml").read_text())  # same path as the bundled one
    assert copy["overrides"]["anthropic"]
    assert _digest(*bundled) == before  # the bundled scenario and cassette are as they were
    # and the run reads the user's recording and accepted form
    out = mine / "out"
    run = ["run", "--root", str(mine), "--provider", "anthropic", "--scenario", "stop_length", "--no-progress"]
    assert main([*run, "--no-html", "--show-diff", "--out", str(out)]) == 0
    (cell,) = [r for c in json.loads((out / "matrix.json").read_text())["cells"] for r in c["results"]]
    assert cell["verdict"] == "pass" and cell["cassette"].endswith("cassettes/anthropic/stop_length.yaml")


def test_record_once_keeps_a_cassette_a_lower_layer_has(
    mine: Path, replies: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["record", "--provider", "anthropic", "--root", str(mine), "--scenario", "stop_length", "--no-progress"]
    assert main(args) == 0
    assert "0 recorded, 1 kept" in capsys.readouterr().out
    assert replies == [] and not (mine / "cassettes/anthropic/stop_length.yaml").exists()


def test_writing_commands_refuse_the_bundled_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replies: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no scenarios/ here: the default root is the bundled data
    assert main(["record", "--provider", "anthropic", "--scenario", "stop_length", "--no-progress"]) == 2
    assert "read-only" in capsys.readouterr().err
    assert main(["sync-requests", "--provider", "anthropic", "--yes"]) == 2
    assert "read-only" in capsys.readouterr().err
    assert replies == []


def _stale_copy(mine: Path, scenario: str) -> Path:
    """A cassette of a bundled scenario the user's root does not override, with a stale request."""
    text = (BUNDLED / "cassettes" / "anthropic" / f"{scenario}.yaml").read_text()
    target = mine / "cassettes" / "anthropic" / f"{scenario}.yaml"
    target.write_text(text.replace('"max_tokens":', '"max_tokens_stale":', 1))
    assert target.read_text() != text
    return target


def test_sync_requests_syncs_the_top_roots_cassettes_only(mine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = _stale_copy(mine, "stop_sequence")
    bundled = sorted((BUNDLED / "cassettes" / "anthropic").glob("*.yaml"))
    before = _digest(*bundled)
    assert main(["sync-requests", "--root", str(mine), "--provider", "anthropic", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "cassettes/anthropic/stop_sequence.yaml interaction 0" in out
    assert '"max_tokens_stale"' not in stale.read_text()
    assert _digest(*bundled) == before


def test_lint_matches_the_top_roots_cassettes_with_every_layers_scenarios(
    mine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (mine / "cassettes" / "anthropic" / "stop_sequence.yaml").write_text(
        (BUNDLED / "cassettes" / "anthropic" / "stop_sequence.yaml").read_text()
    )
    assert main(["lint", "--root", str(mine)]) == 0  # a bundled scenario uses it: not unreferenced
    assert "0 findings in 2 cassettes" in capsys.readouterr().out
    (mine / "cassettes" / "anthropic" / "nobody_plays.yaml").write_text(
        (BUNDLED / "cassettes" / "anthropic" / "stop_sequence.yaml").read_text()
    )
    assert main(["lint", "--root", str(mine)]) == 1
    assert "no scenario uses this cassette" in capsys.readouterr().out


def test_check_judges_a_bundled_scenario_under_a_user_root(
    mine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    actual = tmp_path / "actual.json"
    expected = parse_yaml((BUNDLED / "scenarios" / "responses" / "stop_sequence.yaml").read_text())["expected"]
    actual.write_text(json.dumps(expected))
    code = main(["check", "stop_sequence", "--provider", "anthropic", "--actual", str(actual), "--root", str(mine)])
    out = capsys.readouterr().out
    assert "no scenario named" not in out
    assert code in (0, 1) and "stop_sequence[anthropic]" in out
    # the user's own scenario and its override are found too
    code = main(["check", "text_hello", "--provider", "anthropic", "--actual", str(actual), "--root", str(mine)])
    assert "text_hello[anthropic]" in capsys.readouterr().out
