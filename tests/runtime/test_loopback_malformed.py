"""The servers a runtime under test talks to (the loopback in front of a check's transport, the tool
URL, the emulator) answer a malformed request with a 400 or 413 and one log line: never a traceback,
never a read of a body they were not sent, never a body larger than their limit held."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conformance.emulator import serve, start_in_thread
from conformance.harness.agent_host import TOOL_PATH, AgentHost
from conformance.runtime.loopback import Loopback

ROOT = Path(__file__).resolve().parents[2]
BAD_LENGTHS = ["abc", "-5", str(2**66), "1e3", "0x10", "+7", " 12 3", "5, 6"]


class Echo(httpx.BaseTransport):
    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=request.read())


def _exchange(port: int, raw: bytes) -> bytes:
    """Send `raw` and read the answer until the server closes or 2 s pass."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(raw)
        sock.settimeout(2)
        got = b""
        try:
            while chunk := sock.recv(65536):
                got += chunk
        except TimeoutError:
            pass
    return got


def _request(length: str, path: str = "/v1/chat/completions", body: bytes = b"{}", *, close: bool = False) -> bytes:
    """A POST; `close`: it asks the server to close the connection after its answer (a well-formed
    request is otherwise kept alive, and `_exchange` would wait out its 2 s)."""
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n"
    return (head + ("Connection: close\r\n" if close else "") + "\r\n").encode() + body


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    host = AgentHost(inner=Echo(), cancel=None)
    with Loopback(host, "https://api.openai.com/v1", None) as loop:
        yield loop


def _port(loop: Loopback) -> int:
    return int(loop.origin.rsplit(":", 1)[1])


@pytest.mark.parametrize("length", BAD_LENGTHS)
@pytest.mark.parametrize("path", ["/v1/chat/completions", TOOL_PATH + "/lookup"])
def test_a_bad_content_length_is_a_400_and_one_log_line(
    length: str, path: str, loopback: Loopback, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="conformance.loopback"):
        answer = _exchange(_port(loopback), _request(length, path))
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert "Traceback" not in capsys.readouterr().err
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "Content-Length" in lines[0] and "\n" not in lines[0]
    assert loopback.error is None  # nothing reached the check's transport


def test_a_body_over_the_limit_is_a_413_without_reading_it(
    loopback: Loopback, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    loopback.max_body = 1024
    with caplog.at_level(logging.WARNING, logger="conformance.loopback"):
        answer = _exchange(_port(loopback), _request("1025", TOOL_PATH + "/lookup", b"x" * 1025))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert "1 KiB" in caplog.records[0].getMessage()
    assert "Traceback" not in capsys.readouterr().err


def test_a_body_within_the_limit_still_reaches_the_transport(loopback: Loopback) -> None:
    answer = _exchange(_port(loopback), _request("2", body=b"{}", close=True))
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"\r\n\r\n{}")


def test_a_deep_tool_call_body_is_read_as_text(loopback: Loopback) -> None:
    host = loopback._transport
    body = b"[" * 100_000 + b"]" * 100_000
    answer = _exchange(_port(loopback), _request(str(len(body)), TOOL_PATH + "/lookup", body, close=True))
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert loopback.error is None and isinstance(host.calls[0].arguments, str)


def test_oversized_headers_are_refused_without_a_traceback(
    loopback: Loopback, capsys: pytest.CaptureFixture[str]
) -> None:
    many = "".join(f"X-H{i}: v\r\n" for i in range(200))
    answer = _exchange(_port(loopback), f"GET / HTTP/1.1\r\nHost: x\r\n{many}\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 431"), answer[:200]
    long = "X-Long: " + "v" * 70_000 + "\r\n"
    answer = _exchange(_port(loopback), f"GET / HTTP/1.1\r\nHost: x\r\n{long}\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 431"), answer[:200]
    assert "Traceback" not in capsys.readouterr().err


@pytest.fixture(scope="module")
def emulator() -> Iterator[int]:
    server = serve(ROOT / "cassettes")
    start_in_thread(server)
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("length", BAD_LENGTHS)
def test_the_emulator_answers_a_bad_content_length_with_a_400_and_one_log_line(
    length: str, emulator: int, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        answer = _exchange(emulator, _request(length, "/openai/v1/chat/completions"))
    assert answer.startswith((b"HTTP/1.0 400", b"HTTP/1.1 400")), answer[:200]
    assert "Traceback" not in capsys.readouterr().err and "Traceback" not in caplog.text
    assert not any(r.exc_info for r in caplog.records)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "Content-Length" in lines[0] and "\n" not in lines[0], lines
