"""Every command against a table of bad inputs: one line naming the file, line or field on
stderr, exit code 2 (`lint` reports a malformed cassette as a finding: exit 1), never a
traceback."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.cli import main
from tests.cli.forked_cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
DEEP_JSON = b"[" * 10_000 + b"]" * 10_000
BAD: dict[str, dict[str, bytes | None]] = {
    # kind of input → content per file format (None: the path is missing; b"/": a directory)
    "missing": {"json": None, "yaml": None, "jsonl": None},
    "directory": {"json": b"/", "yaml": b"/", "jsonl": b"/"},
    "binary": dict.fromkeys(("json", "yaml", "jsonl"), b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01\x80\x81"),
    "empty": {"json": b"", "yaml": b"", "jsonl": b""},
    "NUL bytes": dict.fromkeys(("json", "yaml", "jsonl"), b"\x00" * 64),
    "lone surrogate": {
        "json": b'{"messages": [{"role": "user", "content": "\\ud800"}]}',
        "yaml": b'meta: {provider: openai}\ninteractions: "\\ud800"\nid: "\\ud800"\n',
        "jsonl": b'{"role":"user","content":[{"type":"text","text":"\\ud800"}]}\n',
    },
    "10k nesting": {
        "json": DEEP_JSON,
        "yaml": b"a: " + DEEP_JSON + b"\n",
        "jsonl": b'{"role":"user","content":' + DEEP_JSON + b"}\n",
    },
    "wrong type": {"json": b"[1, 2, 3]", "yaml": b"- 1\n- 2\n", "jsonl": b'{"role": ["user"], "content": 7}\n'},
}


def _place(tmp: Path, name: str, content: bytes | None) -> Path:
    path = tmp / name
    if content == b"/":
        path.mkdir(parents=True)
    elif content is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return path


def _project(tmp: Path, scenario: bytes | None) -> Path:
    """A project whose one scenario file is the bad input."""
    root = tmp / "project"
    _place(root, "scenarios/topic/bad.yaml", scenario)
    return root


Command = Callable[[Path, dict[str, bytes | None]], list[str]]
COMMANDS: dict[str, Command] = {
    "decode": lambda t, c: ["decode", "--provider", "openai", str(_place(t, "c.yaml", c["yaml"]))],
    "encode": lambda t, c: ["encode", "--provider", "openai", str(_place(t, "conv.json", c["json"]))],
    "repair": lambda t, c: ["repair", "--provider", "gemini", str(_place(t, "t.jsonl", c["jsonl"]))],
    "lint": lambda t, c: ["lint", str(_place(t, "cassettes/openai/x.yaml", c["yaml"])), "--root", str(t)],
    "check": lambda t, c: [
        "check",
        "text_basic",
        "--provider",
        "openai",
        "--actual",
        str(_place(t, "actual.json", c["json"])),
        "--root",
        str(ROOT),
    ],
    "report": lambda t, c: ["report", "--input", str(_place(t, "m.json", c["json"])), "--out", str(t / "out")],
    "run": lambda t, c: ["run", "--root", str(_project(t, c["yaml"])), "--out", str(t / "out"), "--no-progress"],
    "sync-requests": lambda t, c: ["sync-requests", "--root", str(_project(t, c["yaml"]))],
    "record": lambda t, c: ["record", "--provider", "openai", "--root", str(_project(t, c["yaml"])), "--no-progress"],
    "evidence derive": lambda t, c: [
        "evidence",
        "derive",
        "--corpus",
        str(_place(t, "corpus/catalog.json", c["json"]).parent),
    ],
    "serve": lambda t, c: (
        ["serve", "--port", "0", "--cassettes", str(_place(t, "cassettes", None).parent / "cas")]
        if c["yaml"] is None
        else ["serve", "--port", "0", "--cassettes", str(_place(t, "cas/openai/x.yaml", c["yaml"]).parents[1])]
    ),
}


def _one_line_error(capsys: pytest.CaptureFixture[str], args: list[str], codes: tuple[int, ...] = (2,)) -> str:
    code = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code in codes, (code, out, err)
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        return lines[0]
    return out


@pytest.mark.parametrize("kind", list(BAD))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_bad_input(
    command: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000000000000")
    args = COMMANDS[command](tmp_path, BAD[kind])
    if command == "serve" and kind == "directory":  # a directory is what serve wants: an empty one
        args = ["serve", "--port", "0", "--cassettes", str(_place(tmp_path, "empty", b"/"))]
    if command == "lint" and kind == "directory":
        pytest.skip("lint takes a directory of cassettes")
    # lint reports a malformed cassette as a finding (exit 1); repair recovers what it can from a
    # damaged transcript and lists the damage as warnings (exit 0); run, sync-requests and record
    # skip or report a scenario they cannot use; encode, like repair, mends an escaped lone surrogate
    codes = (0, 1, 2) if command in ("lint", "run", "sync-requests", "record", "repair") else (2,)
    if command == "encode" and kind == "lone surrogate":
        codes = (0,)
    message = _one_line_error(capsys, args, codes)
    assert message


@pytest.mark.parametrize(
    "args",
    [
        ["decode", "--provider", "openai", "--runtime", "json:dumps", str(ROOT / "cassettes/openai/text_basic.yaml")],
        ["decode", "--provider", "openai", str(ROOT / "cassettes")],
        ["report", "--input", str(ROOT / "cassettes/openai/text_basic.yaml")],
        ["serve", "--port", "70000"],
        ["serve", "--fault", ""],
        ["serve", "--fault", "teapot"],
        ["serve", "--fault", "429;times="],
        ["serve", "--fault", "cut=-3"],
        ["record", "--provider", "openai", "--scenario", "text_basic", "--base-url", "not a url"],
        ["record", "--provider", "openai", "--scenario", "text_basic", "--base-url", "http://127.0.0.1:9/v1"],
        ["record", "--provider", "openai", "--scenario", "text_basic", "--base-url", "ftp://127.0.0.1/v1"],
    ],
    ids=lambda a: " ".join(a[:4]),
)
def test_bad_options(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000000000000")
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    monkeypatch.chdir(tmp_path)
    _one_line_error(capsys, args)


def test_out_pointing_at_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    message = _one_line_error(
        capsys,
        [
            "run",
            "--root",
            str(ROOT),
            "--scenario",
            "text_basic",
            "--provider",
            "openai",
            "--out",
            str(tmp_path / "file"),
        ],
    )
    assert "file" in message


def test_serve_on_a_busy_port(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        message = _one_line_error(
            capsys, ["serve", "--port", str(busy.getsockname()[1]), "--cassettes", str(ROOT / "cassettes")]
        )
    finally:
        busy.close()
    assert "in use" in message


# Hostile inputs, each command run as its own process under a time limit ---------------------------
# (a hang is a failure, not a stuck suite). Request logs for `check`, matrices of another schema
# for `report` and `publish`, FIFOs where a file is expected.

TIME_LIMIT_S = 30
RETRY = "retry_429_retry_after"
LOG_LINE = {"seq": 0, "t": 0.0, "cassette": f"cassettes/openai/{RETRY}.yaml", "interaction": 0, "headers": {}}
BAD_LOG_LINES: dict[str, bytes] = {
    "t is text": json.dumps({**LOG_LINE, "t": "abc"}).encode(),
    "t is negative": json.dumps({**LOG_LINE, "t": -1}).encode(),
    "t is a list": json.dumps({**LOG_LINE, "t": [1]}).encode(),
    "t is huge": b'{"seq": 0, "t": 1e999, "cassette": null, "interaction": 0}',
    "interaction is a list": json.dumps({**LOG_LINE, "interaction": [0]}).encode(),
    "interaction is an object": json.dumps({**LOG_LINE, "interaction": {"i": 0}}).encode(),
    "interaction is negative": json.dumps({**LOG_LINE, "interaction": -2}).encode(),
    "interaction is true": json.dumps({**LOG_LINE, "interaction": True}).encode(),
    "seq is text": json.dumps({**LOG_LINE, "seq": "first"}).encode(),
    "seq is a 70-bit integer": b'{"seq": 1180591620717411303424, "t": 0, "cassette": null, "interaction": 0}',
    "cassette is a number": json.dumps({**LOG_LINE, "cassette": 7}).encode(),
    "headers is a list": json.dumps({**LOG_LINE, "headers": ["authorization"]}).encode(),
    "query is an object": json.dumps({**LOG_LINE, "query": {"key": 1}}).encode(),
    "no t": json.dumps({k: v for k, v in LOG_LINE.items() if k != "t"}).encode(),
    "no seq": json.dumps({k: v for k, v in LOG_LINE.items() if k != "seq"}).encode(),
    "no fields": b"{}",
    "an array": b"[0, 1]",
    "a string": b'"t"',
    "not JSON": b"t=abc interaction=0",
    "binary": b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01",
    "10k nesting": DEEP_JSON,
}


def _run_process(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command in its own process (forked from a server that imported the command line once)."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-not-a-real-key-000000000000", "COLUMNS": "200"}
    try:
        return run_cli(args, cwd, env, TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`conformance {' '.join(args)}` still running after {TIME_LIMIT_S} s")


def _one_line_exit_2(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-2000:]
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-500:])
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


@pytest.mark.parametrize("kind", list(BAD_LOG_LINES))
def test_check_with_a_bad_request_log_line(kind: str, tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    log.write_bytes(json.dumps(LOG_LINE).encode() + b"\n" + BAD_LOG_LINES[kind] + b"\n")
    actual = tmp_path / "actual.json"
    actual.write_text(json.dumps({"message": {"role": "assistant", "content": []}}))
    args = ["check", RETRY, "--provider", "openai", "--actual", str(actual), "--request-log", str(log)]
    message = _one_line_exit_2(_run_process([*args, "--root", str(ROOT)], tmp_path))
    assert "requests.jsonl:2" in message


def test_a_request_log_line_without_an_interaction_is_an_unmatched_request(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    lines = [LOG_LINE, {k: v for k, v in LOG_LINE.items() if k not in ("interaction", "cassette")} | {"seq": 1}]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    actual = tmp_path / "actual.json"
    actual.write_text(json.dumps({"message": {"role": "assistant", "content": []}}))
    args = ["check", RETRY, "--provider", "openai", "--actual", str(actual), "--request-log", str(log)]
    done = _run_process([*args, "--root", str(ROOT)], tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stderr
    assert "fail:" in done.stdout


def _matrix(tmp: Path, name: str, **changes: object) -> Path:
    from tests.report.sample import sample_matrix

    data = json.loads(sample_matrix(canaries=False).model_dump_json())
    data.update(changes)
    path = tmp / name / "matrix.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("version", [999, 0, -1, "1", None, 1.5, [1]], ids=repr)
@pytest.mark.parametrize("option", ["--input", "--previous", "--compare", "publish"])
def test_a_matrix_of_another_schema_is_refused(version: object, option: str, tmp_path: Path) -> None:
    good = _matrix(tmp_path, "good")
    bad = _matrix(tmp_path, "bad", schema_version=version)
    out = str(tmp_path / "out")
    args = {
        "--input": ["report", "--input", str(bad), "--out", out],
        "--previous": ["report", "--input", str(good), "--previous", str(bad), "--out", out],
        "--compare": ["report", "--compare", str(good), str(bad), "--out", out],
        "publish": ["publish", str(tmp_path), "--out", out],
    }[option]
    message = _one_line_exit_2(_run_process(args, tmp_path))
    assert "schema_version" in message and "bad" in message


FIFO_COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "decode": lambda f: ["decode", "--provider", "openai", str(f)],
    "encode": lambda f: ["encode", "--provider", "openai", str(f)],
    "repair": lambda f: ["repair", "--provider", "openai", str(f)],
    "check --actual": lambda f: [
        "check",
        "text_basic",
        "--provider",
        "openai",
        "--actual",
        str(f),
        "--root",
        str(ROOT),
    ],
    "check --request-log": lambda f: [
        "check",
        RETRY,
        "--provider",
        "openai",
        "--actual",
        str(f.parent / "actual.json"),
        "--request-log",
        str(f),
        "--root",
        str(ROOT),
    ],
    "report": lambda f: ["report", "--input", str(f), "--out", str(f.parent / "out")],
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("command", list(FIFO_COMMANDS))
def test_a_fifo_where_a_file_is_expected(command: str, tmp_path: Path) -> None:
    fifo = tmp_path / "input.json"
    os.mkfifo(fifo)
    (tmp_path / "actual.json").write_text('{"message": {"role": "assistant", "content": []}}')
    message = _one_line_exit_2(_run_process(FIFO_COMMANDS[command](fifo), tmp_path))
    assert "input.json" in message


def test_a_retry_outcome_that_is_not_an_outcome(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    log.write_text(json.dumps(LOG_LINE) + "\n")
    actual = tmp_path / "actual.json"
    actual.write_text(json.dumps({"message": {"role": "robot", "content": 5}}))
    args = ["check", RETRY, "--provider", "openai", "--actual", str(actual), "--request-log", str(log)]
    assert "actual.json" in _one_line_exit_2(_run_process([*args, "--root", str(ROOT)], tmp_path))
