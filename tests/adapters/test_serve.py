"""The kit's decode helpers serve one recorded response to httpx (sync, async), httpx2 and aiohttp clients,
the body in the row's chunks (one read per chunk) and a cut as the stack's own error; a library that replaces
the harness's mismatch exception with one of its own still gets the mismatch verdict."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.adapters import httpx_transport, reraise_replay_mismatch, serve_response
from conformance.harness.context import HarnessContext
from conformance.harness.run import run_all
from conformance.replay.player import CassetteTransport, ReplayMismatch
from conformance.scenarios import load_scenarios

httpx2 = pytest.importorskip("httpx2")
aiohttp = pytest.importorskip("aiohttp")

ROOT = Path(__file__).resolve().parents[2]
URL = "https://api.openai.com/v1/chat/completions"
CHUNKS = [b'data: {"a":', b" 1}\n", b"\n", b"data: [DONE]\n\n"]
HEADERS = {"content-type": "text/event-stream", "content-length": "999"}


class _Cut:
    """Chunks, then a cut connection (as the harness hands a dropped stream over)."""

    def __iter__(self) -> Any:
        yield b"data: {"
        raise httpx.RemoteProtocolError("peer closed connection")


def test_an_httpx_client_reads_each_chunk_as_one_read_sync_and_async() -> None:
    with httpx.Client(transport=httpx_transport(200, HEADERS, CHUNKS)) as client, client.stream("POST", URL) as r:
        assert [*r.iter_raw()] == CHUNKS  # the library's decoder sees the row's boundaries
        assert r.headers["content-type"] == "text/event-stream"
        assert "content-length" not in r.headers

    async def read() -> list[bytes]:
        async with (
            httpx.AsyncClient(transport=httpx_transport(200, HEADERS, CHUNKS)) as client,
            client.stream("POST", URL) as r,
        ):
            return [c async for c in r.aiter_raw()]

    assert asyncio.run(read()) == CHUNKS


def test_an_httpx2_client_reads_each_chunk_as_one_read_sync_and_async() -> None:
    from conformance.adapters import mock_transport

    with httpx2.Client(transport=mock_transport(200, HEADERS, CHUNKS)) as client, client.stream("POST", URL) as r:
        assert [*r.iter_raw()] == CHUNKS

    async def read() -> list[bytes]:
        async with (
            httpx2.AsyncClient(transport=mock_transport(200, HEADERS, CHUNKS)) as client,
            client.stream("POST", URL) as r,
        ):
            return [c async for c in r.aiter_raw()]

    assert asyncio.run(read()) == CHUNKS


def test_an_aiohttp_client_reads_the_chunks_from_the_loopback_url() -> None:
    async def read(url: str) -> tuple[int, list[bytes]]:
        async with aiohttp.ClientSession() as session, session.post(url + "/v1/chat/completions", data=b"{}") as r:
            return r.status, [chunk async for chunk, _ in r.content.iter_chunks()]

    with serve_response(429, {"retry-after": "2", **HEADERS}, CHUNKS) as served:
        status, got = asyncio.run(read(served.url))
    assert status == 429
    assert b"".join(got) == b"".join(CHUNKS)
    assert len(got) >= 3  # flushed one by one: the reader sees the boundaries (loopback may merge a few)
    assert served.requests == [("POST", "/v1/chat/completions", b"{}")]


def test_a_cut_connection_is_the_stack_s_own_protocol_error() -> None:
    from conformance.adapters import mock_transport

    with (
        httpx.Client(transport=httpx_transport(200, HEADERS, _Cut())) as client,
        client.stream("POST", URL) as r,
        pytest.raises(httpx.RemoteProtocolError),
    ):
        r.read()
    with (
        httpx2.Client(transport=mock_transport(200, HEADERS, _Cut())) as client2,
        client2.stream("POST", URL) as r2,
        pytest.raises(httpx2.RemoteProtocolError),
    ):
        r2.read()
    with (
        serve_response(200, HEADERS, _Cut()) as served,
        httpx.Client() as client,
        pytest.raises(httpx.RemoteProtocolError),
    ):
        client.post(served.url)


def test_a_library_that_replaces_the_mismatch_exception_still_gets_the_mismatch_verdict() -> None:
    [scenario] = [s for s in load_scenarios(ROOT / "scenarios") if s.id == "retry_429_retry_after"]

    class _Lib:  # sends a request the cassette cannot hold, and reports its own error in place of the mismatch
        name = "lib"

        def turn(self, request: Any) -> dict[str, Any]:
            with httpx.Client(transport=request.transport) as client, contextlib.suppress(ReplayMismatch):
                client.post(request.base_url + "/nowhere", json={"x": 1})
            return {"error": {"kind": "server", "message": "the library's own connection error"}, "partial": None}

    [verdict] = run_all([scenario], ["openai"], HarnessContext(root=ROOT, runtime=_Lib(), runtime_name="lib"))
    assert verdict.verdict == "fail"
    assert "no unplayed interaction" in verdict.reason  # the mismatch, not the library's `server` error


def test_the_transport_keeps_the_mismatch_for_an_adapter_to_reraise() -> None:
    from conformance.replay.cassette import Cassette

    transport = CassetteTransport(Cassette(path=Path("empty.yaml"), interactions=[]))
    reraise_replay_mismatch(RuntimeError("the library's own"), transport)  # nothing unmatched yet: returns
    with pytest.raises(ReplayMismatch):
        transport.handle_request(httpx.Request("POST", URL, content=b"{}"))
    with pytest.raises(ReplayMismatch, match="no unplayed interaction"):
        reraise_replay_mismatch(RuntimeError("the library's own"), transport)
