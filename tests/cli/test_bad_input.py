"""Every command against a table of bad inputs: one line naming the file, line or field on
stderr, exit code 2 (`lint` reports a malformed cassette as a finding: exit 1), never a
traceback."""

from __future__ import annotations

import shutil
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.cli import main

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
    # skip or report a scenario they cannot use
    codes = (0, 1, 2) if command in ("lint", "run", "sync-requests", "record", "repair") else (2,)
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
