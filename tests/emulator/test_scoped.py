"""One shared emulator, scoped per scenario: cassettes that hold the same request body
(`error_auth`, `error_overloaded`, `error_server`) each answer their own scenario, in any order and
concurrently; unscoped, the answer depends on what was served before."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from conformance.emulator import serve, start_in_thread
from conformance.emulator.server import EmulatorServer, scenario_base_url, split_path
from conformance.replay.cassette import load_cassette

ROOT = Path(__file__).resolve().parents[2]
SHARED = ("error_auth", "error_overloaded", "error_server")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    cassettes = tmp_path_factory.mktemp("emu") / "cassettes"
    (cassettes / "openai").mkdir(parents=True)
    for scenario in SHARED:
        shutil.copy(ROOT / "cassettes" / "openai" / f"{scenario}.yaml", cassettes / "openai")
    server = serve(cassettes)
    start_in_thread(server)
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _recorded(scenario: str) -> tuple[bytes, int]:
    interaction = load_cassette(ROOT / "cassettes" / "openai" / f"{scenario}.yaml").interactions[0]
    body = interaction.request.body
    return (body.encode() if isinstance(body, str) else body or b""), interaction.response.status


def _send(server: EmulatorServer, scenario: str | None, body: bytes) -> int:
    host, port = server.server_address
    base = scenario_base_url(host, port, scenario, "openai") if scenario else f"http://{host}:{port}/openai/v1"
    return httpx.post(
        base + "/chat/completions", content=body, headers={"content-type": "application/json"}
    ).status_code


def test_the_recorded_requests_really_are_the_same_as_the_provider_reads_them() -> None:
    bodies = {_recorded(s)[0].replace(b" ", b"").replace(b"\n", b"") for s in SHARED}
    assert len({_recorded(s)[1] for s in SHARED}) == 3  # three different answers …
    assert len(bodies) <= 2  # … to (nearly) one request: unscoped, which one answers is a matter of order


@pytest.mark.parametrize("seed", range(3))
def test_scoped_requests_get_their_own_scenario_in_any_order(server: EmulatorServer, seed: int) -> None:
    order = [s for s in SHARED for _ in range(2)]
    random.Random(seed).shuffle(order)
    for scenario in order:
        body, status = _recorded(scenario)
        assert _send(server, scenario, body) == status, scenario


def test_scoped_requests_in_parallel(server: EmulatorServer) -> None:
    jobs = [s for s in SHARED for _ in range(8)]
    random.Random(7).shuffle(jobs)
    with ThreadPoolExecutor(max_workers=12) as pool:
        got = list(pool.map(lambda s: (s, _send(server, s, _recorded(s)[0])), jobs))
    assert all(status == _recorded(s)[1] for s, status in got)


def test_a_scope_without_that_request_is_a_404_naming_the_scenario(server: EmulatorServer) -> None:
    host, port = server.server_address
    url = scenario_base_url(host, port, "text_basic", "openai") + "/chat/completions"
    response = httpx.post(url, content=_recorded("error_auth")[0], headers={"content-type": "application/json"})
    assert response.status_code == 404 and "text_basic" in response.text


def test_split_path() -> None:
    assert split_path("/s/error_auth/openai/v1/chat/completions") == ("error_auth", "openai", "v1/chat/completions")
    assert split_path("/openai/v1/chat/completions") == (None, "openai", "v1/chat/completions")
