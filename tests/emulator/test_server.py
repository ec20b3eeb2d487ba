"""The asynchronous emulator: interaction-by-interaction serving, the request log (keys
fingerprinted), 256 concurrent connections without an error, and typed errors for bad settings."""

from __future__ import annotations

import asyncio
import itertools
import json
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import httpx
import pytest

from conformance.emulator import Settings, base_urls, serve, start_in_thread
from conformance.emulator.server import EmulatorServer
from conformance.exceptions import InputError
from conformance.replay.cassette import load_cassette
from conformance.secrets import key_fingerprint

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-ant-log-7f3a9c2e1b8d4f60a5e7c9b1"


@pytest.fixture
def overloaded(tmp_path: Path) -> Iterator[tuple[EmulatorServer, Path]]:
    """A server with one cassette whose request repeats: 529, 529, then 200."""
    (tmp_path / "cassettes/anthropic").mkdir(parents=True)
    shutil.copy(ROOT / "cassettes/anthropic/retry_overloaded_backoff.yaml", tmp_path / "cassettes/anthropic")
    log = tmp_path / "requests.jsonl"
    server = serve(tmp_path / "cassettes", settings=Settings(request_log=log))
    start_in_thread(server)
    try:
        yield server, log
    finally:
        server.shutdown()
        server.server_close()


def test_a_repeated_request_gets_the_next_recorded_answer_and_is_logged(
    overloaded: tuple[EmulatorServer, Path],
) -> None:
    server, log = overloaded
    cassette = load_cassette(ROOT / "cassettes/anthropic/retry_overloaded_backoff.yaml")
    url = base_urls("127.0.0.1", server.server_address[1], ["anthropic"])["anthropic"] + "/messages"
    body = cassette.interactions[0].request.body
    headers = {"x-api-key": KEY, "content-type": "application/json"}
    statuses = [httpx.post(url, content=body, headers=headers).status_code for _ in range(4)]
    assert statuses == [529, 529, 200, 529]  # served in order, then from the start again
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["seq"] for e in entries] == [0, 1, 2, 3]
    assert [e["interaction"] for e in entries] == [0, 1, 2, 0]
    assert [e["status"] for e in entries] == statuses
    first = entries[0]
    assert first["method"] == "POST" and first["path"] == "/anthropic/v1/messages" and first["provider"] == "anthropic"
    assert first["cassette"].endswith("cassettes/anthropic/retry_overloaded_backoff.yaml")
    assert first["headers"]["x-api-key"] == key_fingerprint(KEY)
    assert first["body"] == json.loads(body or b"null")
    assert all(0 <= a["t"] <= b["t"] for a, b in itertools.pairwise(entries))
    assert KEY not in log.read_text()
    unknown = httpx.post(url, json={"model": "nope"}, headers={"x-api-key": KEY})
    assert unknown.status_code == 404
    assert json.loads(log.read_text().splitlines()[-1])["interaction"] is None


def test_a_key_in_the_query_is_fingerprinted(tmp_path: Path) -> None:
    (tmp_path / "gemini").mkdir()
    shutil.copy(ROOT / "cassettes/gemini/text_basic.yaml", tmp_path / "gemini")
    log = tmp_path / "log.jsonl"
    server = serve(tmp_path, settings=Settings(request_log=log))
    start_in_thread(server)
    try:
        url = base_urls("127.0.0.1", server.server_address[1], ["gemini"])["gemini"]
        httpx.post(f"{url}/models/x:generateContent?key=AIzaSecretSecretSecret&alt=json", json={})
    finally:
        server.shutdown()
        server.server_close()
    entry = json.loads(log.read_text())
    assert entry["query"] == f"key={key_fingerprint('AIzaSecretSecretSecret')}&alt=json"
    assert "AIzaSecret" not in log.read_text()


def test_256_concurrent_connections_without_an_error() -> None:
    server = serve(ROOT / "cassettes")
    start_in_thread(server)
    interaction = load_cassette(ROOT / "cassettes/openai/text_basic.yaml").interactions[0]
    url = base_urls("127.0.0.1", server.server_address[1], ["openai"])["openai"] + "/chat/completions"

    async def drive() -> list[int]:
        connector = aiohttp.TCPConnector(limit=256)
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as session:

            async def one() -> int:
                async with session.post(url, data=interaction.request.body) as response:
                    await response.read()
                    return response.status

            return await asyncio.gather(*(one() for _ in range(512)))

    try:
        statuses = asyncio.run(drive())
    finally:
        server.shutdown()
        server.server_close()
    assert statuses == [interaction.response.status] * 512


def test_bad_settings_are_typed_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no cassettes to serve"):
        serve(tmp_path)
    with pytest.raises(InputError, match="out of range"):
        serve(ROOT / "cassettes", port=70000)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        with pytest.raises(InputError, match="in use"):
            serve(ROOT / "cassettes", port=busy.getsockname()[1])
    finally:
        busy.close()
