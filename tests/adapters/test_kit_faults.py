"""Faults cross the adapter kit as an SDK's own transport raises them: the bytes that arrived, then
the `httpx2` (or `httpx`) error of the same name, for sync and async clients alike."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

httpx2 = pytest.importorskip("httpx2")

from conformance.adapters import Httpx2Transport, mock_transport, recorded_response  # noqa: E402
from conformance.replay.cassette import Cassette, Interaction, RecordedRequest, RecordedResponse  # noqa: E402
from conformance.replay.faults import read_until_dropped  # noqa: E402
from conformance.replay.player import CassetteTransport  # noqa: E402
from conformance.runtime.dropped import DroppedChunks  # noqa: E402

URL = "https://api.example.test/v1/x"


def _cassette(fault: str) -> Cassette:
    it = Interaction(RecordedRequest("POST", URL, b'{"n": 1}'), RecordedResponse(200, b"data: one\n\ndata: tw"))
    return Cassette(Path("c.yaml"), [it], {"fault": fault})


def _read(client: Any) -> tuple[bytes, BaseException | None]:
    parts: list[bytes] = []
    try:
        with client.stream("POST", URL, content=b'{"n": 1}') as response:
            for part in response.iter_bytes():
                parts.append(part)
    except Exception as exc:
        return b"".join(parts), exc
    return b"".join(parts), None


async def _aread(client: Any) -> tuple[bytes, BaseException | None]:
    parts: list[bytes] = []
    try:
        async with client.stream("POST", URL, content=b'{"n": 1}') as response:
            async for part in response.aiter_bytes():
                parts.append(part)
    except Exception as exc:
        return b"".join(parts), exc
    return b"".join(parts), None


@pytest.mark.parametrize(
    ("fault", "error", "arrived"),
    [
        ("drop", httpx2.RemoteProtocolError, b"data: one\n\ndata: tw"),
        ("reset", httpx2.ReadError, b""),
        ("timeout", httpx2.ReadTimeout, b""),
        ("clean_end", None, b"data: one\n\ndata: tw"),
    ],
)
def test_the_bridge_raises_the_httpx2_error_of_the_same_name(
    fault: str, error: type[BaseException] | None, arrived: bytes
) -> None:
    with httpx2.Client(transport=Httpx2Transport(CassetteTransport(_cassette(fault)))) as client:
        got = _read(client)
    assert got[0] == arrived and (type(got[1]) is error if error else got[1] is None)

    async def run() -> tuple[bytes, BaseException | None]:
        async with httpx2.AsyncClient(transport=Httpx2Transport(CassetteTransport(_cassette(fault)))) as client:
            return await _aread(client)

    got = asyncio.run(run())
    assert got[0] == arrived and (type(got[1]) is error if error else got[1] is None)


def test_the_replay_transport_raises_as_httpx_does_sync_and_async() -> None:
    with (
        httpx.Client(transport=CassetteTransport(_cassette("drop"))) as client,
        client.stream("POST", URL, content=b'{"n": 1}') as response,
    ):
        arrived, error = read_until_dropped(response)
    assert arrived == b"data: one\n\ndata: tw" and "incomplete chunked read" in str(error)
    with (
        httpx.Client(transport=CassetteTransport(_cassette("reset"))) as client,
        pytest.raises(httpx.ReadError, match="Connection reset by peer"),
    ):
        client.post(URL, content=b'{"n": 1}')

    async def timed_out() -> None:
        async with httpx.AsyncClient(transport=CassetteTransport(_cassette("timeout"))) as client:
            await client.post(URL, content=b'{"n": 1}')

    with pytest.raises(httpx.ReadTimeout):
        asyncio.run(timed_out())


def test_the_decode_pattern_hands_a_drop_to_the_sdk() -> None:
    chunks = DroppedChunks([b"data: one\n\n", b"data: tw"])
    with httpx2.Client(transport=mock_transport(200, {"content-type": "text/event-stream"}, chunks)) as client:
        arrived, error = _read(client)
    assert arrived == b"data: one\n\ndata: tw" and isinstance(error, httpx2.RemoteProtocolError)
    with httpx2.Client(transport=mock_transport(200, {}, [b"whole"])) as client:
        assert _read(client) == (b"whole", None)

    async def via_httpx() -> tuple[bytes, BaseException | None]:
        transport = httpx.MockTransport(lambda request: recorded_response(200, {}, chunks, request))
        parts: list[bytes] = []
        async with httpx.AsyncClient(transport=transport) as client:
            try:
                async with client.stream("GET", URL) as response:
                    async for part in response.aiter_bytes():
                        parts.append(part)
            except httpx.TransportError as exc:
                return b"".join(parts), exc
        return b"".join(parts), None

    arrived, error = asyncio.run(via_httpx())
    assert arrived == b"data: one\n\ndata: tw" and isinstance(error, httpx.RemoteProtocolError)


def test_a_malformed_fault_names_the_cassette_field() -> None:
    from conformance.exceptions import CassetteError

    with pytest.raises(CassetteError, match=r"c.yaml: meta.fault.*unknown fault 'cut'"):
        CassetteTransport(_cassette("cut"))
    it = _cassette("drop").interactions[0]
    with pytest.raises(CassetteError, match=r"meta.fault.*no interaction index"):
        CassetteTransport(Cassette(Path("c.yaml"), [it], {"fault": {3: "drop"}}))
