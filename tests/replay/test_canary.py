"""The canary: a key without any recognisable prefix, echoed back by a loopback server in every
form a server has been seen to use — verbatim, upper- and lower-cased, `\\u`-escaped whole or in
part, cut to a substring, in an allow-listed header's value and in a header's *name*, in the status
line's reason phrase and in a `set-cookie` — recorded end to end (`conformance record`, twice, so
the drift output shows the echoed text), replayed (`conformance run`: matrix.json, index.html),
sent to the emulator in every key-carrying place, recorded under pytest with a failing recording,
and logged at DEBUG. Not one form of the key is found in any output."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import httpx
import pytest

from conformance.emulator import Settings, base_urls, serve, start_in_thread
from conformance.harness.lint import lint
from conformance.harness.record import record
from conformance.secrets import contains_secret, unescape_ascii
from tests.cli.forked_cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
KEY = "Qm7vT3xK9pL2aR7wN4bH6cJ1yF5dG0sZ"  # no provider prefix: only the key itself can catch it


def _escaped(text: str, every: int = 1) -> str:
    return "".join(f"\\u{ord(c):04x}" if i % every == 0 else c for i, c in enumerate(text))


BODY_FORMS = {
    "verbatim": KEY,
    "upper": KEY.upper(),
    "lower": KEY.lower(),
    "escaped": _escaped(KEY),
    "half escaped": _escaped(KEY, 2),
    "escaped upper": _escaped(KEY.upper()),
    "substring": KEY[4:21],
}
HEADER_FORMS = {
    "x-request-id": KEY,
    "x-ratelimit-limit-requests": KEY.upper(),
    "x-ratelimit-remaining-requests": KEY.lower()[3:19],
    "openai-processing-ms": _escaped(KEY),
    f"x-ratelimit-{KEY.lower()}": "1",  # the key in a header name, under an allow-listed prefix
    "set-cookie": f"session={KEY}; Path=/; HttpOnly",
}


def leaks(text: str) -> bool:
    """Any form of the key: itself or a 12-character piece, in any case, escaped or not."""
    return contains_secret(text, (KEY,)) or contains_secret(unescape_ascii(text), (KEY,))


def _body(turn: int) -> bytes:
    placeholder = "@FORMS@"
    content = f"answer {turn}: " + placeholder
    body = json.dumps(
        {
            "id": "chatcmpl-canary",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    )
    return body.replace(placeholder, " | ".join(f"{k}={v}" for k, v in BODY_FORMS.items())).encode()


class _Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    turns = 0

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        _Echo.turns += 1
        body = _body(_Echo.turns)
        self.send_response(200, f"OK {KEY}")
        self.send_header("content-type", "application/json")
        for name, value in HEADER_FORMS.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _cli(args: list[str], cwd: Path) -> str:
    """`conformance ARGS` in a process of its own (forked from a server that imported the command line
    before the key was in any environment), its stdout and stderr."""
    env = {**os.environ, "OPENAI_API_KEY": KEY, "XAI_API_KEY": KEY, "COLUMNS": "200"}
    done = run_cli(args, cwd, env, 300)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return done.stdout + done.stderr


def test_no_form_of_the_key_reaches_a_cassette_a_report_or_the_drift_output(echo_url: str, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    record_args = ["record", "--provider", "openai", "--scenario", "text_basic", "--record-mode", "all"]
    outputs = [_cli([*record_args, "--base-url", echo_url, "--root", str(tmp_path), "--no-progress"], tmp_path)]
    outputs.append(_cli([*record_args, "--base-url", echo_url, "--root", str(tmp_path), "--no-progress"], tmp_path))
    assert "recorded openai/text_basic" in outputs[0]
    assert "the normalized outcome changed" in outputs[1]  # the drift output shows the echoed text
    assert "<redacted>" in outputs[1]
    cassette = tmp_path / "cassettes/openai/text_basic.yaml"
    written = cassette.read_text()
    assert "<redacted>" in written and "answer 2" in written
    assert "set-cookie" not in written and "x-ratelimit-limit-requests:\n      - <redacted>" in written
    outputs.append(
        _cli(
            ["run", "--root", str(tmp_path), "--scenario", "text_basic", "--provider", "openai", "--out", "out"],
            tmp_path,
        )
    )
    matrix, html = (tmp_path / "out/matrix.json").read_text(), (tmp_path / "out/index.html").read_text()
    assert "answer 2" in matrix and "answer 2" in html
    found = {name: leaks(text) for name, text in [("cassette", written), ("matrix", matrix), ("html", html)]}
    found |= {f"cli output {i}": leaks(text) for i, text in enumerate(outputs)}
    assert not any(found.values()), found
    assert not [f for f in lint([cassette], None) if f.rule == "secret"]


def test_no_form_of_the_key_reaches_a_log_line_at_debug(
    echo_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore"):  # a library imported earlier in the process (litellm) may quiet them
        caplog.set_level(logging.DEBUG, logger=name)
    record(tmp_path, "openai", mode="all", scenario_ids=["text_basic"], base_url=echo_url, env={"OPENAI_API_KEY": KEY})
    names = {r.name for r in caplog.records}
    assert {"httpx", "httpcore.http11", "httpcore.connection"} <= names  # the emitting loggers were heard
    lines = [caplog.handler.format(r) for r in caplog.records]
    assert any("<redacted>" in line for line in lines)
    assert not [line for line in lines if leaks(line)]


def test_no_form_of_the_key_reaches_the_emulator_request_log(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    server = serve(ROOT / "cassettes", settings=Settings(request_log=log, keys=(KEY,)))
    start_in_thread(server)
    try:
        url = base_urls("127.0.0.1", server.server_address[1], ["openai"])["openai"] + "/chat/completions"
        sent = [
            ({"cookie": f"session={KEY}; theme=dark"}, {}),
            ({"x-custom-key": KEY}, {}),
            ({"ocp-apim-subscription-key": KEY}, {}),
            ({}, {"token": KEY}),
            ({}, {"q": f"find {KEY.upper()}"}),
            ({"authorization": f"Bearer {KEY}"}, {}),
            ({"x-trace": f"id={KEY}"}, {}),  # a given key in a header no one declared
            ({"x-api-key": "sk-admin-" + "A1b2C3d4E5f6G7h8I9j0K1l2"}, {"api_key": "sk-svcacct-" + "Z" * 24}),
        ]
        for headers, params in sent:
            httpx.post(url, headers=headers, params=params, json={"model": "nope"})
    finally:
        server.shutdown()
        server.server_close()
    text = log.read_text()
    assert len(text.splitlines()) == len(sent)
    assert not leaks(text) and "sk-admin-A1b2" not in text and "sk-svcacct-ZZZZ" not in text
    entries = [json.loads(line) for line in text.splitlines()]
    assert entries[0]["headers"]["cookie"].startswith("fp:") and entries[3]["query"].startswith("token=fp:")


CONFTEST = """
from conformance import capabilities

capabilities.register(capabilities.get_profile("openai").with_base_url({echo!r}))
capabilities.register(capabilities.get_profile("xai").with_base_url("http://127.0.0.1:9/v1"))  # refused: a failure
"""


def test_no_form_of_the_key_reaches_pytest_output_of_a_recording(echo_url: str, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    (tmp_path / "conftest.py").write_text(CONFTEST.format(echo=echo_url))
    args = ["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-l", "-vv", "--tb=long", "-m", "provider"]
    args += ["--conformance-root", str(tmp_path), "--conformance-record-mode", "all", "-k", "text_basic and not xai_"]
    args += ["--conformance-provider", "openai", "--conformance-provider", "xai"]
    env = {**os.environ, "OPENAI_API_KEY": KEY, "XAI_API_KEY": KEY}
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run([sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert "text_basic[xai]" in output and "recording text_basic[xai] failed: InputError" in output, output[-3000:]
    assert "text_basic[openai]" in output and "answer" in output  # the echo was recorded and judged
    assert not leaks(output), output[-3000:]
