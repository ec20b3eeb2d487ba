"""The command line as a user runs it: output shapes, exit codes, errors that name where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from tests.harness.project import SCENARIO, make_project


def test_decode_prints_one_outcome_per_interaction(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(tmp_path)
    assert main(["decode", "--provider", "anthropic", str(root / "cassettes/anthropic/text_hello.yaml")]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    out = json.loads(line)
    assert out["interaction"] == 0
    assert out["message"]["content"] == [{"type": "text", "text": "Hello!"}]
    assert out["message"]["stop_reason"] == "stop"


def test_encode_prints_the_wire_body(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conv = tmp_path / "conversation.json"
    conv.write_text(
        json.dumps(
            {
                "messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Hi"}],
                "options": {"max_tokens": 100},
                "model": "claude-sonnet-4-5",
            }
        )
    )
    assert main(["encode", "--provider", "anthropic", str(conv)]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["system"] == [{"type": "text", "text": "Be terse."}]
    assert body["max_tokens"] == 100
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]


def test_encode_mends_lone_surrogates_as_repair_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # half an emoji escaped in the file: `conformance repair` replaces it with U+FFFD and says so;
    # encode reads the conversation the same way instead of refusing the file as invalid JSON
    conv = tmp_path / "conversation.json"
    conv.write_text('{"messages": [{"role": "user", "content": "cut \\ud83d here"}], "options": {"max_tokens": 9}}')
    assert main(["encode", "--provider", "anthropic", str(conv)]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["messages"][0]["content"][0]["text"] == "cut \ufffd here"
    assert "replaced 1 unpaired UTF-16 surrogate(s) with U+FFFD" in out.err
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"role": "user", "content": "cut \\ud83d here"}\n')
    assert main(["repair", "--provider", "anthropic", str(transcript)]) == 0
    repaired = json.loads(capsys.readouterr().out)
    assert repaired["messages"][0]["content"][0]["text"] == "cut \ufffd here"


def test_run_writes_the_matrix_and_exits_by_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["run", "--root", str(root), "--provider", "anthropic", "--provider", "openai", "--no-html"]
    assert main(args) == 0
    matrix = json.loads((tmp_path / "reports/matrix.json").read_text())  # from the working directory
    assert matrix["counts"] == {
        "pass": 1,
        "fail": 0,
        "unsupported": 1,
        "missing": 0,
        "error": 0,
        "skipped": 0,
        "not_offered": 0,
        "policy": 0,
    }
    assert "✓ 1/1" in capsys.readouterr().out
    (root / "scenarios/responses/text_hello.yaml").write_text(SCENARIO.replace('text: "Hello!"', 'text: "Bye"'))
    assert main(args) == 1
    assert "✗ text_hello[anthropic]" in capsys.readouterr().out
    assert main([*args, "--jobs", "2"]) == 1  # in workers: the same verdicts
    assert "✗ text_hello[anthropic]" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["decode", "--provider", "nope", "x.yaml"], "unknown provider 'nope'"),
        (["decode", "--provider", "openai", "missing.yaml"], "missing.yaml: no such cassette"),
        (["encode", "--provider", "openai", "missing.json"], "missing.json: no such file"),
        (["run", "--root", "/nonexistent"], "/nonexistent/scenarios: no such scenario directory"),
        (["run", "--runtime", "nomodule_xyz:make"], "--runtime: cannot import 'nomodule_xyz'"),
    ],
)
def test_bad_input_exits_2_with_a_message(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err.replace("\n", "")
    assert "Traceback" not in err


def test_malformed_conversation_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conv = tmp_path / "c.json"
    conv.write_text(json.dumps({"messages": [{"role": "user", "content": [{"type": "text"}]}]}))
    assert main(["encode", "--provider", "anthropic", str(conv)]) == 2
    assert "messages[0].content[0].text" in capsys.readouterr().err


def test_encode_reports_what_the_provider_would_reject(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.runtime import reference

    conv = tmp_path / "c.json"
    conv.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}], "options": {"max_tokens": 10}}))

    def broken(self: object, conversation: dict[str, object], provider: str) -> dict[str, object]:
        return {"model": "m", "messages": [{"role": "assistant", "content": "first"}]}

    monkeypatch.setattr(reference.ReferenceRuntime, "encode", broken)
    assert main(["encode", "--provider", "anthropic", str(conv)]) == 1
    err = capsys.readouterr().err
    assert "anthropic would reject" in err


@pytest.mark.parametrize(
    ("jobs", "message"),
    [("0", "expected at least 1 worker, got 0"), ("many", "expected a number of workers or 'auto', got 'many'")],
)
def test_bad_jobs_is_a_usage_error(jobs: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--jobs", jobs])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_run_judges_the_real_traffic_unless_told_not_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path)
    args = ["run", "--root", str(root), "--provider", "anthropic", "--provider", "fireworks", "--no-html"]
    args += ["--out", str(root / "reports")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "real traffic: 144 calls, 144 pass" in out
    assert "authored only" not in out  # every column has real calls (fireworks: 2)
    matrix = json.loads((root / "reports/matrix.json").read_text())
    columns = {c["provider"]: c for c in matrix["real_traffic"]}
    assert columns["anthropic"]["traffic"]["counts"] == {"pass": 142}
    assert columns["fireworks"]["traffic"]["counts"] == {"pass": 2} and not columns["fireworks"]["authored_only"]

    from conformance.harness import real
    from tests.harness.test_real import DropsUsage

    with monkeypatch.context() as patched:
        patched.setattr("conformance.cli.load_runtime", lambda *a, **k: (DropsUsage(), "mutant-drops-usage"))
        assert main([*args, "--show-diff"]) == 1  # a failing real call alone fails the run
    out = capsys.readouterr().out
    assert "real/anthropic/messages/" in out and "message.usage" in out and "source: https://" in out
    assert main([*args, "--no-real"]) == 0
    assert "real traffic: left out of this run" in capsys.readouterr().out
    assert json.loads((root / "reports/matrix.json").read_text())["real_traffic"] is None
    assert real.cases()  # read once for the three runs
